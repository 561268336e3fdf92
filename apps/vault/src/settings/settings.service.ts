import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readSettings, VaultSettings } from './settings';

@Injectable()
export class SettingsService {
  constructor(private readonly dataSource: DataSource) {}

  get(orgId: number): Promise<VaultSettings> {
    return readSettings(this.dataSource.manager, orgId);
  }
}
