import type { AppContext } from '../../services/platform/context';
import type { Route } from '../routeTable';

/** Rooms and messages to an agent over HTTP. */
export function roomsRoutes(_ctx: AppContext): Route[] {
  return [];
}
