/** Writes the workflow bundle once, so workers start without bundling (`WORKFLOW_BUNDLE_PATH`). */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowBundlerOptions, workflowsPath } from '../temporal/workflowBundle';

export async function writeWorkflowBundle(outFile: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...workflowBundlerOptions,
    logger: new DefaultLogger('WARN'),
  });
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, code);
  return outFile;
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? '.data/workflow-bundle.js');
  writeWorkflowBundle(out).then(
    () => console.log(`workflow bundle written to ${out}`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
