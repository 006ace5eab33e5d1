import { enrollFromFields, enrollInputSchema } from './enrollFields';
import { warp, Warp } from '../warps/warpKit';

/** `svc-automation-enroll`: the warp an automation's system-owned inbound hook runs (docs/AUTOMATIONS.md). */
export const automationWarps: Warp[] = [
  warp({
    name: 'svc-automation-enroll',
    description:
      'Enrolls a contact in an automation: the contact named by contactId, email or phone, created from the given ' +
      'fields when none matches; a contact already in the journey is not enrolled twice. Answers the enrollment.',
    input: enrollInputSchema,
    // Enrolling writes inside the team; the journey's own sends follow the automation's rules.
    approval: 'none',
    // It starts enrollment-<id>, whose first activity reads the enrollment row: never inside an open transaction.
    startsWork: true,
    run: ({ ctx, team, principal }, input) =>
      enrollFromFields(
        ctx,
        team,
        input,
        // A hook run acts with its run id as the credential: the enrollment names the run.
        principal.credentialId.startsWith('hkr_') ? `hook:${principal.credentialId}` : 'execute',
      ),
  }),
];
