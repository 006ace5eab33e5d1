import fs from 'node:fs';
import path from 'node:path';
import { CLUSTER_FRONTEND_ADDRESS, clusterConfigFile } from '../../temporal/cluster';
import { TEMPORAL_SERVER_VERSION } from '../../temporal/server';
import { projectRoot } from '../setup/stack';

/**
 * temporal-compose.yml cannot run here (no Docker engine), so what it shares with the cluster
 * this profile proves is checked as text: the same server release, the repo's config file
 * mounted and used, and clients dialling the frontend port that file gives.
 */
describe('temporal-compose.yml runs what the production profile tests', () => {
  const compose = fs.readFileSync(path.join(projectRoot, 'temporal-compose.yml'), 'utf8');
  const release = TEMPORAL_SERVER_VERSION.replace(/^v/, '');

  it('uses the Temporal server and admin tools of the release temporal/server.ts builds', () => {
    const images = [...compose.matchAll(/image: (temporalio\/(?:server|admin-tools|auto-setup)):(\S+)/g)];
    expect(images.map(([, image, tag]) => `${image}:${tag}`).sort()).toEqual([
      `temporalio/admin-tools:${release}`,
      `temporalio/admin-tools:${release}`,
      `temporalio/server:${release}`,
    ]);
  });

  it('starts the server with temporal/cluster/config.yaml and its dynamic config, mounted from the repo', () => {
    const dir = path.relative(projectRoot, path.dirname(clusterConfigFile));
    expect(compose).toContain(`- ./${dir}:/etc/temporal/cluster:ro`);
    expect(compose).toContain(`"--config-file", "/etc/temporal/cluster/${path.basename(clusterConfigFile)}"`);
    expect(compose).toContain('TEMPORAL_DYNAMIC_CONFIG: /etc/temporal/cluster/dynamicconfig.yaml');
  });

  it("points every Temporal client at the config's frontend port", () => {
    const port = CLUSTER_FRONTEND_ADDRESS.split(':')[1];
    expect(fs.readFileSync(clusterConfigFile, 'utf8')).toMatch(
      new RegExp(`frontend:\\n\\s+rpc:\\n\\s+grpcPort: ${port}\\n`),
    );
    const addresses = [...compose.matchAll(/(?:TEMPORAL_ADDRESS: |--address )(\S+)/g)].map(([, address]) => address);
    expect(addresses.length).toBeGreaterThanOrEqual(4);
    expect(new Set(addresses)).toEqual(new Set([`temporal:${port}`]));
  });
});
