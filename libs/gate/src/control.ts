import { Actor } from '@app/audit';

type Runner = { query(sql: string, params?: unknown[]): Promise<any> };

/**
 * Separation of duties (issue 34): an account someone created is theirs to use, since they held
 * its first token or password, so the self-elevation rules (joining a group, sharing to oneself,
 * approving) treat it as that person, transitively. Whether `userId` is `actorId` or an account
 * that `actorId` controls, directly or through accounts it controls.
 */
export async function isSelfOrControlled(runner: Runner, userId: number, actorId: number): Promise<boolean> {
  if (userId === actorId) return true;
  const [row] = await runner.query(
    `WITH RECURSIVE chain AS (
       SELECT id, controller_id, 1 AS depth FROM users WHERE id = $1
       UNION ALL SELECT u.id, u.controller_id, c.depth + 1 FROM users u JOIN chain c ON u.id = c.controller_id WHERE c.depth < 32
     ) SELECT EXISTS (SELECT 1 FROM chain WHERE controller_id = $2) AS controlled`,
    [userId, actorId],
  );
  return row?.controlled === true;
}

/** Whether two accounts are one person: one controls the other, directly or transitively. */
export async function samePerson(runner: Runner, a: number, b: number): Promise<boolean> {
  return (await isSelfOrControlled(runner, a, b)) || (await isSelfOrControlled(runner, b, a));
}

/** Whether any member of the group is the actor or an account the actor controls. */
export async function groupIncludesSelf(runner: Runner, groupId: number, actor: Pick<Actor, 'id'>): Promise<boolean> {
  const [row] = await runner.query(
    `WITH RECURSIVE chain AS (
       SELECT u.id, u.controller_id, 1 AS depth FROM user_group_members gm JOIN users u ON u.id = gm.user_id WHERE gm.group_id = $1
       UNION ALL SELECT u.id, u.controller_id, c.depth + 1 FROM users u JOIN chain c ON u.id = c.controller_id WHERE c.depth < 32
     ) SELECT EXISTS (SELECT 1 FROM chain WHERE id = $2 OR controller_id = $2) AS included`,
    [groupId, actor.id],
  );
  return row?.included === true;
}
