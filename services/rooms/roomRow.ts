/**
 * A room: one durable conversation with one agent. Its transcript and events live in Postgres;
 * its turns run in the `room-<roomId>` workflow. Anyone holding one of its keys may follow its
 * stream; everything else goes through the team's credentials.
 */
export interface RoomRow {
  seq: number;
  id: string;
  team_id: string;
  agent_id: string;
  name: string;
  created_by: string | null;
  /** An outside caller's team (docs/AGENTS.md › Outside callers); null: the agent's own team's room. */
  caller_team_id: string | null;
  last_event_seq: number;
  last_message_seq: number;
  created_at: Date;
  last_activity_at: Date;
}
