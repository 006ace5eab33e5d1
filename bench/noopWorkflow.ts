/** The baseline of the job-completion benchmark: a workflow that does nothing. */
export async function noopWorkflow(): Promise<string> {
  return 'done';
}
