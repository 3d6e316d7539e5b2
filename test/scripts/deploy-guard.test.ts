import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lossesOf, runDeployGuard, statefulTypes } from '../../scripts/deploy-guard.ts';

/** One `Changes` entry as `aws cloudformation describe-change-set` prints it. */
const change = (resource: Record<string, unknown>) => ({
  Type: 'Resource',
  ResourceChange: {
    Scope: ['Properties'],
    Details: [],
    PhysicalResourceId: 'physical-id',
    ...resource,
  },
});

/** The envelope describe-change-set prints around the changes. */
const changeSet = (...changes: unknown[]) => ({
  Changes: changes,
  ChangeSetName: 'plant-store-1234',
  ChangeSetId: 'arn:aws:cloudformation:eu-west-1:123456789012:changeSet/plant-store-1234/abc',
  StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/PlantStore-prod/def',
  StackName: 'PlantStore-prod',
  ExecutionStatus: 'AVAILABLE',
  Status: 'CREATE_COMPLETE',
  Capabilities: ['CAPABILITY_IAM'],
});

const table = { LogicalResourceId: 'PlantsTable0A1B2C3D', ResourceType: 'AWS::DynamoDB::Table' };

describe('lossesOf', () => {
  it.each([...statefulTypes])('names a removed %s', (type) => {
    const losses = lossesOf(
      changeSet(change({ Action: 'Remove', LogicalResourceId: 'Thing', ResourceType: type })),
    );
    expect(losses).toEqual([{ logicalId: 'Thing', type, why: 'removed' }]);
  });

  it.each(['True', 'Conditional'])('names a table whose Replacement is %s', (replacement) => {
    const losses = lossesOf(
      changeSet(change({ ...table, Action: 'Modify', Replacement: replacement })),
    );
    expect(losses).toEqual([{ ...pick(table), why: `replaced (Replacement ${replacement})` }]);
  });

  it('names a replaced secret with its PolicyAction, and a Dynamic change of a queue', () => {
    const losses = lossesOf(
      changeSet(
        change({
          Action: 'Modify',
          Replacement: 'True',
          PolicyAction: 'ReplaceAndDelete',
          LogicalResourceId: 'WebhookSecret',
          ResourceType: 'AWS::SecretsManager::Secret',
        }),
        change({ Action: 'Dynamic', LogicalResourceId: 'Queue', ResourceType: 'AWS::SQS::Queue' }),
      ),
    );
    expect(losses.map(({ logicalId, why }) => `${logicalId}: ${why}`)).toEqual([
      'WebhookSecret: replaced (Replacement True), PolicyAction ReplaceAndDelete',
      'Queue: may be replaced (Action Dynamic: CloudFormation cannot tell yet)',
    ]);
  });

  it.each(['Retain', 'ReplaceAndRetain'])(
    'lets through a removal whose PolicyAction is %s',
    (policy) => {
      const losses = lossesOf(
        changeSet(
          change({ ...table, Action: 'Remove', PolicyAction: policy }),
          change({ ...table, Action: 'Modify', Replacement: 'True', PolicyAction: policy }),
        ),
      );
      expect(losses).toEqual([]);
    },
  );

  it('lets through harmless changes: versions, aliases, policies, a Modify in place, an Add', () => {
    const losses = lossesOf(
      changeSet(
        change({
          Action: 'Add',
          LogicalResourceId: 'CreatePlantVersion1a2b',
          ResourceType: 'AWS::Lambda::Version',
        }),
        change({
          Action: 'Remove',
          LogicalResourceId: 'CreatePlantVersion0f0f',
          ResourceType: 'AWS::Lambda::Version',
        }),
        change({
          Action: 'Modify',
          Replacement: 'False',
          LogicalResourceId: 'CreatePlantAliasLive',
          ResourceType: 'AWS::Lambda::Alias',
        }),
        change({
          Action: 'Modify',
          Replacement: 'True',
          LogicalResourceId: 'CreatePlantRoleDefaultPolicy',
          ResourceType: 'AWS::IAM::Policy',
        }),
        change({ ...table, Action: 'Modify', Replacement: 'False' }),
        change({ Action: 'Add', LogicalResourceId: 'Queue', ResourceType: 'AWS::SQS::Queue' }),
      ),
    );
    expect(losses).toEqual([]);
  });

  it('reads a change set with no changes as nothing lost, failed or not', () => {
    expect(lossesOf(changeSet())).toEqual([]);
    expect(
      lossesOf({
        ...changeSet(),
        Status: 'FAILED',
        StatusReason: "The submitted information didn't contain changes.",
      }),
    ).toEqual([]);
  });

  it.each([
    ['not an object', [], /no "Changes" array/],
    ['no Changes', { StackName: 'PlantStore-prod' }, /no "Changes" array/],
    ['a page of many', { ...changeSet(), NextToken: 'more' }, /more pages/],
    [
      'a failed change set with changes',
      { ...changeSet(change({ ...table, Action: 'Remove' })), Status: 'FAILED', StatusReason: 'x' },
      /failed: x/,
    ],
    ['a change of another type', changeSet({ Type: 'HookInvocation' }), /not a resource change/],
    ['a change without its action', changeSet(change({ ...table })), /no Action/],
    [
      'a change without its type',
      changeSet(change({ Action: 'Remove', LogicalResourceId: 'X' })),
      /\(X\) has no ResourceType/,
    ],
  ])('refuses %s', (_name, input, message) => {
    expect(() => lossesOf(input)).toThrow(message);
  });
});

describe('npm run -s deploy:guard', () => {
  let dir: string;
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deploy-guard-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints one line per lost resource and exits 1, leaving the stack as it was', async () => {
    const path = await file(
      'refused.json',
      JSON.stringify(changeSet(change({ ...table, Action: 'Remove' }))),
    );
    const { stdout, code } = await run([path]);
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      'REFUSED  PlantsTable0A1B2C3D  AWS::DynamoDB::Table  removed',
      '1 stateful resource(s) would lose their data; the stack is left as it was',
      '',
    ]);
  });

  it('lets an acknowledged removal through by its logical id, and no other', () => {
    const both = changeSet(
      change({ ...table, Action: 'Remove' }),
      change({ Action: 'Remove', LogicalResourceId: 'Queue', ResourceType: 'AWS::SQS::Queue' }),
    );
    const path = join(dir, 'both.json');
    return writeFile(path, JSON.stringify(both)).then(() => {
      expect(runDeployGuard([path, '--allow', 'PlantsTable0A1B2C3D'])).toMatchObject({ code: 1 });
      const allowed = runDeployGuard([path, '--allow', 'PlantsTable0A1B2C3D Queue']);
      expect(allowed.code).toBe(0);
      expect(allowed.out).toContain('ALLOWED  Queue  AWS::SQS::Queue  removed');
    });
  });

  it('exits 0 on a harmless change set', async () => {
    const harmless = changeSet(change({ ...table, Action: 'Modify', Replacement: 'False' }));
    const { code, out } = runDeployGuard([await file('harmless.json', JSON.stringify(harmless))]);
    expect(code).toBe(0);
    expect(out).toBe('no stateful resource is lost without leave (0 allowed)\n');
  });

  it.each([
    ['text that is not JSON', 'Changes: none'],
    ['JSON that is no change set', '{"Stacks": []}'],
    ['an empty file', ''],
  ])('exits 2 on %s, never 0', async (_name, text) => {
    const { code, err } = runDeployGuard([await file('bad.json', text)]);
    expect(code).toBe(2);
    expect(err).toMatch(/^deploy:guard: .*bad\.json: /);
  });

  it('exits 2 on a missing file or without exactly one', () => {
    expect(runDeployGuard([join(dir, 'absent.json')]).code).toBe(2);
    expect(runDeployGuard([]).code).toBe(2);
  });
});

function pick({ LogicalResourceId, ResourceType }: typeof table) {
  return { logicalId: LogicalResourceId, type: ResourceType };
}

/**
 * The command in a process of its own, run once: its printing and exit code. The other tests call
 * `runDeployGuard`, all the command does but write them out.
 */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = new URL('../../scripts/deploy-guard.ts', import.meta.url).pathname;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}
