import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../support/cloud-assembly.ts';
import { type Deployment, evaluateCfn } from '../support/cloudformation.ts';
import { onlyResource, resourceAt, synthStack } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  template = synthStack({ bundle: false }).template;
});

/** What CloudFormation makes of the published version's description in this deployment. */
const versionDescription = (from: Template, deployment: Deployment): string => {
  const [, version] = onlyResource(from, 'AWS::Lambda::Version');
  return String(
    evaluateCfn(from.toJSON() as CfnTemplate, version.Properties.Description, deployment),
  );
};

/** A deployment of the stack: the physical ids CloudFormation gave the table, pool and client. */
const deployedWith = (
  names: { table: string; pool: string; client: string },
  region = 'eu-west-1',
): Deployment => ({
  region,
  accountId: '123456789012',
  resources: {
    'AWS::DynamoDB::Table': { ref: names.table },
    'AWS::Cognito::UserPool': {
      ref: names.pool,
      attributes: { ProviderURL: `https://cognito-idp.${region}.amazonaws.com/${names.pool}` },
    },
    'AWS::Cognito::UserPoolClient': { ref: names.client },
  },
});

const first = {
  table: 'PlantStore-test-PlantsTable4EFC45DE-1S2T3U4V5W6X7',
  pool: 'eu-west-1_Pl4ntTest',
  client: '4p1antst0reclient0id0abcde',
};

describe('CreatePlantFunction versions', () => {
  it('keeps every version it publishes, when replaced and when dropped from the template', () => {
    template.hasResource('AWS::Lambda::Version', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it.each([
    ['the table', { ...first, table: 'PlantStore-test-PlantsTable4EFC45DE-9Z8Y7X6W5V4U3' }],
    ['the user pool', { ...first, pool: 'eu-west-1_N3wPo0l42' }],
    ['the app client', { ...first, client: '0th3rclient0id0abcdefghijk' }],
  ])(
    'publishes a new version when %s is replaced, though the template stays the same',
    (_what, replaced) => {
      const [, fn] = resourceAt(template, 'AWS::Lambda::Function', 'CreatePlantFunction');
      // The function's template names these only by reference, so the version's logical id (a hash
      // of that template) cannot change with them.
      expect(JSON.stringify(fn.Properties.Environment)).not.toContain(first.pool);

      const before = versionDescription(template, deployedWith(first));
      const after = versionDescription(template, deployedWith(replaced));

      // CloudFormation replaces an AWS::Lambda::Version whose Description changes: a new version.
      expect(after).not.toBe(before);
      expect(versionDescription(template, deployedWith(first))).toBe(before);
    },
  );

  it('describes the version with the values behind each reference, once each', () => {
    const description = versionDescription(template, deployedWith(first));

    expect(description.split(' ').sort()).toEqual(
      [
        first.client,
        `https://cognito-idp.eu-west-1.amazonaws.com/${first.pool}`,
        'plants',
        first.table,
      ].sort(),
    );
  });

  it('stays within the 256 characters of a version description, for the longest names', () => {
    const stage = 'a-twenty-char-stage1';
    const { template: longest } = synthStack({ bundle: false, stage });
    const region = 'ap-southeast-5';

    const description = versionDescription(
      longest,
      deployedWith(
        {
          // CloudFormation names a table <stack>-<logical id>-<13 random characters>.
          table: `PlantStore-${stage}-PlantsTable4EFC45DE-ABCDEFGHIJKLM`,
          pool: `${region}_AbCdEfGhI`,
          client: 'abcdefghijklmnopqrstuvwxyz',
        },
        region,
      ),
    );

    expect(description.length).toBeLessThanOrEqual(256);
  });

  it('with an external issuer, describes only the table: the issuer is in the template', () => {
    const { template: external } = synthStack({
      bundle: false,
      externalIssuer: { issuer: 'https://issuer.example.com/', audiences: ['plants'] },
    });

    expect(versionDescription(external, deployedWith(first))).toBe(first.table);
  });
});

describe('CreatePlantFunction log group', () => {
  it('is kept after the stack is deleted, but not after a failed first deploy', () => {
    const [, fn] = resourceAt(template, 'AWS::Lambda::Function', 'CreatePlantFunction');
    const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
    const group = template.toJSON().Resources[LogGroup.Ref];

    expect(group).toMatchObject({
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
  });
});
