// @ts-check
/* An agent's knowledge: memories, skills, documents, character and its mailbox. */
import { setStatus } from '../lib/frame.js';

export default function agentPage() {
  setStatus('');
}
