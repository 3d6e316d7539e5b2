import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operations } from '../../functions/operations.ts';
import { projectRoot } from '../../infra/bundling/bundling.ts';
import { readCiConfig } from '../../infra/ci-config.ts';
import { deploySessionDuration } from '../../infra/constructs/github-deploy-role.ts';
import { deploymentConfigNames, shiftMinutes } from '../../infra/constructs/gradual-deployment.ts';
import { preTrafficCheckTimeout } from '../../infra/constructs/pre-traffic-check.ts';

const workflowsDir = path.join(projectRoot, '.github', 'workflows');
const actionsDir = path.join(projectRoot, '.github', 'actions');
const workflowFiles = readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name));
const actionFiles = readdirSync(actionsDir).map((name) => path.join(name, 'action.yml'));
const read = (file: string) => readFileSync(file, 'utf8');
const { stages } = (
  JSON.parse(read(path.join(projectRoot, 'cdk.json'))) as {
    context: { stages: Record<string, unknown> };
  }
).context;

type Step = {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  id?: string;
};
type Job = {
  if?: string;
  'timeout-minutes'?: number;
  needs?: string | string[];
  environment?: string | { name: string; url?: string };
  permissions?: Record<string, string>;
  steps: Step[];
};
type Workflow = {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

const ci = parse(read(path.join(workflowsDir, 'ci.yml'))) as Workflow;
const deployStage = parse(read(path.join(actionsDir, 'deploy-stage', 'action.yml'))) as {
  inputs: Record<string, unknown>;
  runs: { using: string; steps: Step[] };
};
const job = (name: string): Job => {
  const found = ci.jobs[name];
  if (found === undefined) throw new Error(`no job ${name}`);
  return found;
};
/** A GitHub Actions expression as the YAML holds it: `${{ inner }}`. */
const expression = (inner: string) => `\${{ ${inner} }}`;
const scripts = (steps: Step[]) => steps.flatMap((step) => (step.run ? [step.run] : []));

describe('GitHub Actions files against the schema (action-validator, SchemaStore)', () => {
  it.each(workflowFiles)('workflow %s is valid', (name) => {
    expect(validateWorkflow(read(path.join(workflowsDir, name))).errors).toEqual([]);
  });

  it.each(actionFiles)('action %s is valid', (name) => {
    expect(validateAction(read(path.join(actionsDir, name))).errors).toEqual([]);
  });

  it.each([
    [
      'a misspelt key',
      (text: string) => text.replace('runs-on: ubuntu-24.04', 'run-on: ubuntu-24.04'),
    ],
    [
      'a job that needs a missing job',
      (text: string) => text.replace('needs: test', 'needs: tests'),
    ],
    [
      'an unknown permission',
      (text: string) => text.replace('id-token: write', 'id-tokens: write'),
    ],
  ])('refuses ci.yml with %s', (_what, breakIt) => {
    const original = read(path.join(workflowsDir, 'ci.yml'));
    const broken = breakIt(original);
    expect(broken).not.toBe(original);
    expect(validateWorkflow(broken).errors).not.toEqual([]);
  });
});

describe('the CI workflow', () => {
  it('tests every push and pull request with npm ci && npm test', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(ci.on.push).toBeNull();
    const test = job('test');
    expect(test.if).toBeUndefined();
    expect(scripts(test.steps)).toEqual(
      expect.arrayContaining(['npm ci --no-audit --no-fund', 'npm test']),
    );
  });

  it('runs the Node version the project pins (.nvmrc, which agrees with the node devDependency)', () => {
    const packageJson = JSON.parse(read(path.join(projectRoot, 'package.json'))) as {
      devDependencies: Record<string, string>;
    };
    const nvmrc = read(path.join(projectRoot, '.nvmrc')).trim();
    expect(packageJson.devDependencies.node?.split('.')[0]).toBe(nvmrc);
    const setupNode = [...job('test').steps, ...deployStage.runs.steps].filter((step) =>
      step.uses?.startsWith('actions/setup-node@'),
    );
    expect(setupNode).toHaveLength(2);
    for (const step of setupNode) expect(step.with?.['node-version-file']).toBe('.nvmrc');
  });

  it('gives the test job read-only contents and no id token', () => {
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(job('test').permissions).toBeUndefined();
  });

  it('deploys dev only on a push to main, after the tests, with an OIDC token', () => {
    const dev = job('deploy-dev');
    expect(dev.if).toBe("github.event_name == 'push' && github.ref == 'refs/heads/main'");
    expect(dev.needs).toBe('test');
    expect(dev.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    // Without an environment, the token's subject is the main ref, which the role trusts.
    expect(dev.environment).toBeUndefined();
    expect(dev.steps.find((step) => step.uses === './.github/actions/deploy-stage')?.with).toEqual({
      stage: 'dev',
      'role-to-assume': expression('vars.AWS_DEPLOY_ROLE_ARN'),
      'aws-region': expression('vars.AWS_REGION'),
    });
  });

  it('deploys prod after dev, in the prod environment, which the CI role trusts by default', () => {
    const prod = job('deploy-prod');
    expect(prod.needs).toBe('deploy-dev');
    expect(prod.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(prod.environment).toEqual({
      name: 'prod',
      url: expression('steps.deploy.outputs.api-url'),
    });
    expect(readCiConfig((key) => (key === 'githubRepo' ? 'o/n' : undefined))?.environments).toEqual(
      ['prod'],
    );
    expect(prod.steps.find((step) => step.id === 'deploy')?.with).toEqual({
      stage: 'prod',
      'role-to-assume': expression('vars.AWS_DEPLOY_ROLE_ARN'),
      'aws-region': expression('vars.AWS_REGION'),
    });
  });

  it("deploys only stages that have an entry in cdk.json's context.stages", () => {
    const deployed = Object.values(ci.jobs).flatMap((each) =>
      each.steps.filter((step) => step.uses === './.github/actions/deploy-stage'),
    );
    expect(deployed.map((step) => step.with?.stage).sort()).toEqual(['dev', 'prod']);
    for (const step of deployed) expect(Object.keys(stages)).toContain(step.with?.stage);
  });

  it('pins every third-party action to a full commit SHA, with its tag beside it', () => {
    const files = [
      ...workflowFiles.map((name) => path.join(workflowsDir, name)),
      ...actionFiles.map((name) => path.join(actionsDir, name)),
    ];
    const uses = files.flatMap((file) =>
      [...read(file).matchAll(/uses:\s*(\S+)(.*)$/gm)].map(([, ref, rest]) => [ref, rest]),
    );
    expect(uses.length).toBeGreaterThan(0);
    for (const [ref, rest] of uses) {
      if (ref?.startsWith('./')) continue;
      expect(ref).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      expect(rest).toMatch(/^ # v\d+\.\d+\.\d+$/);
    }
  });

  it('never uses long-lived AWS keys', () => {
    for (const file of [
      ...workflowFiles.map((name) => path.join(workflowsDir, name)),
      ...actionFiles.map((name) => path.join(actionsDir, name)),
    ]) {
      expect(read(file)).not.toMatch(/aws-access-key-id|aws-secret-access-key|secrets\.AWS/i);
    }
  });
});

describe('the deploy-stage action', () => {
  const { steps } = deployStage.runs;
  const checks = () => {
    const found = steps.find((step) => step.run?.includes('npm run smoke -- --url'));
    if (found?.run === undefined) throw new Error('no step runs npm run smoke');
    return found.run;
  };
  /** The deploy action's token request: its command, from `token=$(` to its last line. */
  const tokenCommand = (): string => {
    const lines = checks().split('\n');
    const start = lines.findIndex((line) => line.includes('token=$('));
    return lines.slice(start, start + 4).join(' ');
  };

  it('assumes the role with the OIDC token, deploys the stage, then checks it with a token from its outputs', () => {
    const credentials = steps.findIndex((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(steps[credentials]?.with).toMatchObject({
      'role-to-assume': expression('inputs.role-to-assume'),
    });
    const deploy = steps.findIndex((step) =>
      step.run?.includes('npx cdk deploy "PlantStore-$STAGE"'),
    );
    const smoke = steps.findIndex((step) => step.run?.includes('npm run smoke -- --url'));
    expect(credentials).toBeGreaterThan(-1);
    expect(deploy).toBeGreaterThan(credentials);
    expect(smoke).toBeGreaterThan(deploy);
    for (const output of ['ApiUrl', 'UserPoolId', 'ClientId', 'TokenUrl']) {
      expect(checks()).toContain(`out ${output}`);
    }
    expect(checks()).toContain('npm run smoke -- --url "$api_url" --token "$token"');
    expect(steps[deploy]?.run).toContain('--outputs-file "cdk-outputs.$STAGE.json"');
  });

  it('runs the contract against the stage after its deploy, with the same token', () => {
    const script = checks();
    const smoke = script.indexOf('npm run smoke -- --url');
    const contract = script.indexOf('npm run contract -- --url "$api_url" --token "$token"');
    expect(contract).toBeGreaterThan(smoke);
  });

  it("passes the deploy only the stage and its own role: the rest is the stage's entry in cdk.json", () => {
    expect(Object.keys(deployStage.inputs).sort()).toEqual([
      'aws-region',
      'role-to-assume',
      'stage',
    ]);
    const deploy = steps.find((step) => step.run?.includes('npx cdk deploy'));
    const given = [...(deploy?.run ?? '').matchAll(/-c "([^=]+)=/g)].map(([, key]) => key);
    expect(given).toEqual(['stage', 'ciRoleArn']);
    expect(Object.keys(deploy?.env ?? {}).sort()).toEqual(['CI_ROLE_ARN', 'STAGE']);
  });

  it('tells the stage its own role, so that the stage lets it read that pool only', () => {
    const deploy = steps.find((step) => step.run?.includes('npx cdk deploy'));
    expect(deploy?.run).toContain('-c "ciRoleArn=$CI_ROLE_ARN"');
    expect(deploy?.env?.CI_ROLE_ARN).toBe(expression('inputs.role-to-assume'));
  });

  it('builds the secret command itself from the ids in the outputs, and evaluates no output', () => {
    const script = checks();
    expect(script).not.toMatch(/\beval\b/);
    expect(script).not.toContain('ClientSecretCommand');
    expect(script).toMatch(
      /aws cognito-idp describe-user-pool-client --user-pool-id "\$user_pool_id" \\\s+--client-id "\$client_id" --query UserPoolClient\.ClientSecret --output text/,
    );
  });

  it('retries the token request, DNS failures included, for longer than a new Cognito domain takes', () => {
    const command = tokenCommand();
    const option = (name: string) => Number(new RegExp(`--${name} (\\d+)`).exec(command)?.[1]);
    expect(command).toContain('--retry-all-errors');
    expect(option('retry') * option('retry-delay')).toBeGreaterThanOrEqual(60);
  });

  it('asks for a token with every scope an operation requires, so the checks reach them all', () => {
    const command = tokenCommand();
    const requested = /--data-urlencode "scope=([^"]*)"/.exec(command)?.[1]?.split(' ') ?? [];

    expect(requested.sort()).toEqual([...new Set(operations.map(({ scope }) => scope))].sort());
    expect(command).not.toMatch(/ -d scope=/);
  });

  it('hands the client secret to curl on stdin, never on its command line', () => {
    const command = tokenCommand();
    expect(command).toMatch(
      /printf 'user = "%s:%s"\\n' "\$client_id" "\$client_secret" \|\s+curl .*--config - /,
    );
    expect(command).not.toMatch(/ -u /);
  });

  it('passes inputs to scripts through the environment, never spliced into the script', () => {
    for (const script of scripts(steps)) expect(script).not.toMatch(/\$\{\{/);
  });
});

describe('the deploy jobs and their role session', () => {
  /**
   * What a deploy job does besides the traffic shift and the hook: npm ci, bundling,
   * CloudFormation's other resources, the smoke test and the contract.
   */
  const restOfTheJobMinutes = 30;
  const longestShift = Math.max(...deploymentConfigNames.map((name) => shiftMinutes[name]));

  it.each(['deploy-dev', 'deploy-prod'])(
    '%s has time for the longest deployment config offered',
    (name) => {
      const minutes = job(name)['timeout-minutes'] ?? 360;
      expect(longestShift).toBe(100);
      expect(minutes).toBeGreaterThanOrEqual(
        longestShift + preTrafficCheckTimeout.toMinutes() + restOfTheJobMinutes,
      );
    },
  );

  it('asks for a session as long as any deploy job may run, and the role allows it', () => {
    const credentials = deployStage.runs.steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );
    const sessionSeconds = Number(credentials?.with?.['role-duration-seconds']);
    for (const name of ['deploy-dev', 'deploy-prod']) {
      expect(sessionSeconds).toBeGreaterThanOrEqual((job(name)['timeout-minutes'] ?? 360) * 60);
    }
    expect(deploySessionDuration.toSeconds()).toBeGreaterThanOrEqual(sessionSeconds);
  });
});
