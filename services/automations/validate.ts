import type { Db } from '../../db/knex';
import type { PlanStep } from '../../workflows/contracts/enrollment';
import { hasActiveIntegration } from '../agents/integrations';
import { AppError } from '../platform/errors';
import { AUTOMATION_ENROLL_WARP } from '../hooks/systemHooks';
import { durationMs } from '../warps/duration';
import { builtInWarp } from '../catalog/warps';
import type { Step } from './schemas';

/**
 * The rules a journey's steps are checked against when an automation is created or its steps
 * change (422 `invalid_automation` listing every issue with its path, e.g. `steps.2.then`), and
 * the control-flow plan its enrollment workflows carry.
 */

interface Issue {
  path: string;
  message: string;
}

/** What a runWarp input may reference: the enrolled contact's fields and the enrollment. */
export const REFERENCE =
  /^\$\.(contact\.(id|name|firstName|lastName|email|phone|company|title|location|properties\.[A-Za-z0-9_-]{1,100})|enrollment\.id|automation\.id)$/;

/** A target (index or label) as a step index; null when it names no step. */
export function targetIndex(steps: Pick<Step, 'label'>[], target: number | string): number | null {
  if (typeof target === 'number') return target < steps.length ? target : null;
  const index = steps.findIndex((s) => s.label === target);
  return index < 0 ? null : index;
}

function referencesIn(value: unknown, path: string, issues: Issue[]): void {
  if (typeof value === 'string') {
    if (value.startsWith('$.') && !REFERENCE.test(value))
      issues.push({
        path,
        message: `${value} is not a reference: use $.contact.<field> (id, name, firstName, lastName, email, phone, company, title, location, properties.<key>), $.enrollment.id or $.automation.id`,
      });
  } else if (Array.isArray(value)) value.forEach((v, i) => referencesIn(v, `${path}.${i}`, issues));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) referencesIn(v, `${path}.${k}`, issues);
}

/** Checks the steps for the agent of the automation and answers the plan; throws 422 `invalid_automation`. */
export async function checkSteps(db: Db, teamId: string, agentId: string, steps: Step[]): Promise<PlanStep[]> {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  steps.forEach((s, i) => {
    if (!s.label) return;
    if (seen.has(s.label)) issues.push({ path: `steps.${i}.label`, message: `the label ${s.label} is used twice` });
    seen.add(s.label);
  });
  // Forward only: every journey ends, and its history stays as long as its steps.
  const forward = (i: number, field: string, target: number | string | undefined): number | undefined => {
    if (target === undefined) return undefined;
    const index = targetIndex(steps, target);
    if (index === null) issues.push({ path: `steps.${i}.${field}`, message: `${target} names no step` });
    else if (index <= i)
      issues.push({
        path: `steps.${i}.${field}`,
        message: `${target} is not a later step (a journey only goes forward)`,
      });
    else return index;
    return undefined;
  };
  const privateWarps = new Set<string>(await db('private_warps').where({ team_id: teamId }).pluck('name'));
  const plan: PlanStep[] = [];
  for (const [i, s] of steps.entries()) {
    const at = (field: string) => `steps.${i}.${field}`;
    switch (s.type) {
      case 'wait':
        plan.push({ kind: 'wait', ms: durationMs(s.duration) });
        break;
      case 'waitForEvent': {
        const onTimeout = forward(i, 'onTimeout', s.onTimeout);
        plan.push({
          kind: 'waitForEvent',
          event: s.event,
          timeoutMs: durationMs(s.timeout),
          ...(onTimeout !== undefined ? { onTimeout } : {}),
        });
        break;
      }
      case 'send': {
        if (!s.content.trim() && !s.contentHtml?.trim())
          issues.push({ path: at('content'), message: 'a send has content' });
        if (s.channel !== 'email' && s.contentHtml)
          issues.push({ path: at('contentHtml'), message: 'contentHtml is for email only' });
        if (s.channel === 'sms' && s.subject) issues.push({ path: at('subject'), message: 'an SMS has no subject' });
        if (s.channel === 'email' && !s.subject)
          issues.push({ path: at('subject'), message: 'an email has a subject' });
        const both = Object.keys(s.templateParams).filter((k) => k in s.aiParams);
        if (both.length)
          issues.push({
            path: at('aiParams'),
            message: `a placeholder is in templateParams or aiParams, never both: ${both.join(', ')}`,
          });
        if (Object.keys(s.aiParams).length && !(await hasActiveIntegration(db, teamId, agentId, s.channel)))
          issues.push({
            path: at('aiParams'),
            message: `aiParams need the automation agent to have an active ${s.channel} integration`,
          });
        plan.push({ kind: 'send' });
        break;
      }
      case 'runWarp': {
        const w = builtInWarp(s.warp);
        if (s.warp === AUTOMATION_ENROLL_WARP)
          issues.push({ path: at('warp'), message: 'a journey does not enroll contacts (no automation runs another)' });
        else if (w?.unavailable) issues.push({ path: at('warp'), message: w.unavailable });
        else if (!w && !privateWarps.has(s.warp))
          issues.push({ path: at('warp'), message: `${s.warp} is not a built-in warp nor a private warp of the team` });
        referencesIn(s.inputs, at('inputs'), issues);
        plan.push({ kind: 'runWarp' });
        break;
      }
      case 'branch':
        forward(i, 'then', s.then);
        forward(i, 'else', s.else);
        plan.push({ kind: 'branch' });
        break;
      case 'exit':
        plan.push({ kind: 'exit' });
        break;
    }
  }
  if (issues.length)
    throw new AppError('invalid_automation', `The steps are not valid: ${issues[0].path}: ${issues[0].message}`, {
      issues,
    });
  return plan;
}
