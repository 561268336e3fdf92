import { OneOf } from '@app/http';

export class UnmanagedListDto {
  @OneOf(['sharedpath', 'loadbalancer']) type?: 'sharedpath' | 'loadbalancer';
}
