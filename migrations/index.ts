import { Initial1795241742557 } from './1795241742557-Initial';

// Every migration, in order. New migrations are appended here.
export const MIGRATIONS: Function[] = [Initial1795241742557];
