import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Public } from '@app/http';

/** For load balancers: public, no secret; reports whether the database answers. */
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  async health() {
    await this.dataSource.query('SELECT 1');
    return { status: 'ok' };
  }
}
