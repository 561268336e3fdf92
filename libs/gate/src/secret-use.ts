/**
 * What a caller wants to do with a stored secret. Every path that releases a secret, uses
 * one on the caller's behalf or replaces one names its use, and the gate decides from it
 * (the share level it needs, what is audited).
 */
export type SecretUse = 'read' | 'download' | 'change' | 'use' | 'configure' | 'export';
