import { z } from 'zod';
import { ruleBroken } from '../platform/errors';
import { warp, Warp } from './warpKit';

const NOT_YET = 'Automations are not built yet; svc-automation-enroll answers not_available until they are';

/** `svc-automation-enroll`: the warp an automation's system-owned hook runs. Registered so its name is known. */
export const automationWarps: Warp[] = [
  warp({
    name: 'svc-automation-enroll',
    description: `Enrolls a contact in an automation. ${NOT_YET}.`,
    input: z.looseObject({}),
    approval: 'none',
    unavailable: NOT_YET,
    run: async () => {
      throw ruleBroken('not_available', NOT_YET);
    },
  }),
];
