// @ts-check
/* Names the pages share: the team's agents (read once) and the channels' labels. */
import { listAgents } from '../api/endpoints.js';

/** @type {Map<string, string> | null} */
let agentNames = null;
/** The team's agents, id to name (read once per page). */
export async function agents() {
  if (!agentNames) {
    const res = await listAgents({ limit: 100 });
    agentNames = new Map((res.body.data || []).map((a) => [a.uuid, a.name]));
  }
  return agentNames;
}

/** @type {Record<string, string>} */
export const CHANNELS = { email: 'Email', sms: 'SMS', whatsapp: 'WhatsApp', push: 'Push' };
