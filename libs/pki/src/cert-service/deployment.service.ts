import { Injectable } from '@nestjs/common';
import { posix } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { PkiSecretGate, pkiSecretTarget } from '@app/gate';
import { AppError } from '@app/http';
import { joinPems } from '../certs';
import { RemoteHostError, runRemoteCommand, shellQuote, SshHostKeys, SshTarget, verifySshLogin, writeRemoteFile } from '@app/ssh';
import { expectedHostKey, mapSshErrors } from '@app/ssh/service';
import { chainOf } from './certificate-export.service';
import { CertificateSecrets } from './certificate-secrets';
import { CertificatesService } from './certificates.service';
import { DeployCertificateDto, DeploymentTargetDto } from './deployment.dto';
import { DeploymentRepository, DeploymentTargetRow } from './deployment.repository';

export const SSH_PASSWORD_CONTEXT = 'ssh_resources.login_password';
const DEFAULT_SSH_PORT = 22;

export interface DeployStatus {
  server: string;
  message: string;
  /** KMP's documented spelling (its sample compares with "Success"). */
  status: 'Success' | 'Failure';
}

interface DeployFiles {
  certificate: string;
  chain: string;
  key: string;
}

/** saveDeploymentTarget and deployCertificate: certificate, key and chain written over SSH (SFTP). */
@Injectable()
export class DeploymentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly targets: DeploymentRepository,
    private readonly certificates: CertificatesService,
    private readonly secrets: CertificateSecrets,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly hostKeys: SshHostKeys,
    private readonly gate: PkiSecretGate,
  ) {}

  async saveTarget(actor: Actor, dto: DeploymentTargetDto): Promise<{ created: boolean }> {
    const paths = [dto.certificatePath, dto.keyPath, ...(dto.chainPath ? [dto.chainPath] : [])];
    for (const [field, path] of [['certificatePath', dto.certificatePath], ['keyPath', dto.keyPath], ['chainPath', dto.chainPath]] as const) {
      if (path !== undefined && path !== '' && !isRemoteFilePath(path)) throw AppError.invalid(`${field} must be an absolute file path on the server`);
    }
    if (new Set(paths).size !== paths.length) throw AppError.invalid('certificatePath, keyPath and chainPath must be different files');
    // A new login replaces a stored one only when it works (as applycredentials), tested before anything is written.
    if (!dto.resourceName?.trim()) await this.testLogin(actor, dto);
    const created = await this.dataSource.transaction(async (m) => {
      const resourceId = await this.resourceFor(m, actor, dto);
      const isNew = await this.targets.saveTarget(m, {
        orgId: actor.orgId,
        name: dto.serverName,
        sshResourceId: resourceId,
        certificatePath: dto.certificatePath,
        keyPath: dto.keyPath,
        chainPath: dto.chainPath ?? '',
        reloadCommand: dto.reloadCommand?.trim() ?? '',
      });
      await this.audit.record({ category: 'Pki', operation: AuditOperation.DeploymentTargetSaved, actor, target: dto.serverName }, m);
      return isNew;
    });
    return { created };
  }

  /** deployCertificate: to the server named by serverName, or to every saved server. */
  async deploy(actor: Actor, dto: DeployCertificateDto): Promise<DeployStatus[]> {
    const row = await this.certificates.find(actor.orgId, dto);
    const targets = await this.targets.listTargets(actor.orgId, dto.serverName?.trim() || undefined);
    if (targets.length === 0) {
      throw dto.serverName?.trim()
        ? AppError.notFound(`No deployment target named ${dto.serverName} is saved`)
        : AppError.invalid('No deployment targets are saved; add one with saveDeploymentTarget');
    }
    // Deploying sends the private key to other hosts: the same decision as an export.
    const detail = `deployment to ${targets.map((t) => t.name).join(', ')}, serial ${row.serial_number}`;
    const { privateKeyPem } = await this.gate.release(actor, pkiSecretTarget('certificate-key', row.common_name, { ...row, name: row.common_name }, { detail }), async (m) =>
      this.secrets.requireKeyOf(row, await this.secrets.open(row, m)),
    );
    const files = { certificate: row.certificate_pem, chain: joinPems(chainOf(row)), key: privateKeyPem };
    const statuses: DeployStatus[] = [];
    for (const target of targets) {
      const status = await this.deployTo(actor, target, files);
      await this.audit.record({
        category: 'Pki',
        operation: AuditOperation.CertificateDeployed,
        outcome: status.status === 'Success' ? 'Success' : 'Failed',
        actor,
        target: row.common_name,
        description: `serial ${row.serial_number} to ${target.name}: ${status.message}`,
      });
      statuses.push(status);
    }
    return statuses;
  }

  private async testLogin(actor: Actor, dto: DeploymentTargetDto): Promise<void> {
    const host = dto.HOST?.trim();
    if (!host || !dto.userName?.trim() || !dto.password || !/^[A-Za-z0-9._:-]+$/.test(host)) return; // resourceFor names what is missing
    const target: SshTarget = {
      host,
      port: dto.PORT ?? DEFAULT_SSH_PORT,
      orgId: actor.orgId,
      actor,
      expectedHostKey: expectedHostKey(dto.HOSTKEYFINGERPRINT),
      username: dto.userName.trim(),
      password: dto.password,
    };
    await mapSshErrors(() => verifySshLogin(target, false), `The deployment target ${dto.serverName} was not saved: the login failed`);
  }

  private async resourceFor(m: EntityManager, actor: Actor, dto: DeploymentTargetDto): Promise<number> {
    if (dto.resourceName?.trim()) {
      const found = await this.targets.findResource(m, actor.orgId, dto.resourceName.trim());
      if (!found) throw AppError.notFound(`No SSH resource named ${dto.resourceName}; give HOST, userName and password to add the server`);
      return found.id;
    }
    const host = dto.HOST?.trim();
    if (!host) throw AppError.invalid('resourceName or HOST is required');
    if (!/^[A-Za-z0-9._:-]+$/.test(host)) throw AppError.invalid('HOST must be a host name or an IP address');
    if (!dto.userName?.trim()) throw AppError.invalid('userName is required with HOST');
    if (!dto.password) throw AppError.invalid('password is required with HOST');
    const port = dto.PORT ?? DEFAULT_SSH_PORT;
    const fingerprint = expectedHostKey(dto.HOSTKEYFINGERPRINT);
    if (fingerprint) await this.hostKeys.pinGiven(m, actor, host, port, fingerprint);
    const label = host.includes(':') ? `[${host}]` : host;
    return this.targets.saveResource(m, {
      orgId: actor.orgId,
      name: port === DEFAULT_SSH_PORT ? label : `${label}:${port}`,
      address: host,
      port,
      userName: dto.userName.trim(),
      sealedPassword: this.keyring.seal(dto.password, SSH_PASSWORD_CONTEXT),
    });
  }

  private async deployTo(actor: Actor, target: DeploymentTargetRow, files: DeployFiles): Promise<DeployStatus> {
    const fail = (message: string): DeployStatus => ({ server: target.name, message, status: 'Failure' });
    if (!target.login_user || !target.login_password) return fail('No login credentials are saved for this server');
    const ssh: SshTarget = {
      host: target.address,
      port: target.port,
      orgId: actor.orgId,
      actor,
      username: target.login_user,
      password: await this.keyring.openText(target.login_password, SSH_PASSWORD_CONTEXT),
    };
    // Without a chain file the certificate file carries the chain too, as web servers expect.
    const writes: Array<[string, string, number]> = [
      [target.certificate_path, target.chain_path ? files.certificate : files.certificate + files.chain, 0o644],
      [target.key_path, files.key, 0o600],
      ...(target.chain_path ? [[target.chain_path, files.chain, 0o644] as [string, string, number]] : []),
    ];
    try {
      const dirs = [...new Set(writes.map(([path]) => posix.dirname(path)))];
      const mkdir = await runRemoteCommand(ssh, `mkdir -p -- ${dirs.map(shellQuote).join(' ')}`);
      if (mkdir.exitCode !== 0) return fail(`Cannot create ${dirs.join(', ')}: ${firstLine(mkdir.stderr)}`);
      for (const [path, content, mode] of writes) await writeRemoteFile(ssh, path, Buffer.from(content), mode);
      if (!target.reload_command) return { server: target.name, message: 'Certificate deployed successfully', status: 'Success' };
      const reload = await runRemoteCommand(ssh, target.reload_command);
      if (reload.exitCode !== 0) {
        return fail(`Files written, but the reload command exited with ${reload.exitCode ?? reload.signal}: ${firstLine(reload.stderr)}`);
      }
      return { server: target.name, message: 'Certificate deployed and service reloaded successfully', status: 'Success' };
    } catch (error) {
      if (error instanceof RemoteHostError) return fail(error.message);
      throw error;
    }
  }
}

function isRemoteFilePath(path: string): boolean {
  return path.startsWith('/') && !path.endsWith('/') && !/[\0\r\n]/.test(path) && path.length <= 1024;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 200);
}
