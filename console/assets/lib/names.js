// @ts-check
/* Names the pages share: the team's agents (read once) and the channels' labels. */
import { api } from './api.js';

let agentNames = null;
export async function agents() {
  if (!agentNames) {
    const res = await api('GET', '/agents?limit=100');
    agentNames = new Map((res.body.data || []).map((a) => [a.uuid || a.id, a.name]));
  }
  return agentNames;
}

export const CHANNELS = { email: 'Email', sms: 'SMS', whatsapp: 'WhatsApp', push: 'Push' };
