// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these are CloudFormation's Fn::Sub placeholders, not JavaScript's.
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../../bench/support/cloud-assembly.ts';
import {
  type Deployment,
  evaluateCfn,
  evaluateEnvironment,
} from '../../../bench/support/cloudformation.ts';

const template: CfnTemplate = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table' },
    Pool: { Type: 'AWS::Cognito::UserPool' },
    Client: { Type: 'AWS::Cognito::UserPoolClient' },
    Server: { Type: 'AWS::Cognito::UserPoolResourceServer', Properties: { Identifier: 'plants' } },
    OtherTable: { Type: 'AWS::DynamoDB::Table' },
  },
};

const deployment: Deployment = {
  region: 'eu-west-1',
  accountId: '123456789012',
  resources: {
    'AWS::DynamoDB::Table': { ref: 'plants-table', attributes: { Arn: 'arn:table' } },
    OtherTable: { ref: 'other-table' },
    Pool: { attributes: { ProviderURL: 'https://issuer.example' } },
    Client: { ref: 'client-1' },
  },
};

describe('evaluateCfn (CloudFormation intrinsics against a deployment)', () => {
  it.each([
    ['a plain string', 'text', 'text'],
    ['Ref of a resource, by its type', { Ref: 'Table' }, 'plants-table'],
    ['Ref by logical id before type', { Ref: 'OtherTable' }, 'other-table'],
    ['Ref of a resource server: its Identifier', { Ref: 'Server' }, 'plants'],
    ['Fn::GetAtt as a list', { 'Fn::GetAtt': ['Pool', 'ProviderURL'] }, 'https://issuer.example'],
    ['Fn::GetAtt as a string', { 'Fn::GetAtt': 'Table.Arn' }, 'arn:table'],
    ['pseudo parameters', { Ref: 'AWS::Partition' }, 'aws'],
    [
      'Fn::Join of nested intrinsics',
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Pool', 'ProviderURL'] }, '/.well-known/jwks.json']] },
      'https://issuer.example/.well-known/jwks.json',
    ],
    [
      'Fn::Select over Fn::Split',
      { 'Fn::Select': [1, { 'Fn::Split': ['//', { 'Fn::GetAtt': ['Pool', 'ProviderURL'] }] }] },
      'issuer.example',
    ],
    [
      'Fn::Sub with pseudo parameters, Ref, GetAtt and a literal',
      {
        'Fn::Sub':
          'dynamodb.${AWS::Region}.${AWS::URLSuffix}/${Table}/${Pool.ProviderURL}/${!Keep}',
      },
      'dynamodb.eu-west-1.amazonaws.com/plants-table/https://issuer.example/${Keep}',
    ],
    [
      'Fn::Sub with its own variables',
      { 'Fn::Sub': ['${Scope}/write@${AWS::AccountId}', { Scope: { Ref: 'Server' } }] },
      'plants/write@123456789012',
    ],
  ])('evaluates %s', (_case, value, expected) => {
    expect(evaluateCfn(template, value, deployment)).toBe(expected);
  });

  it.each([
    ['a resource the template lacks', { Ref: 'Missing' }, /no resource Missing/],
    ['a Ref the deployment does not give', { Ref: 'Pool' }, /no Ref for Pool/],
    ['an attribute the deployment does not give', { 'Fn::GetAtt': ['Pool', 'Arn'] }, /Pool\.Arn/],
    ['an unsupported function', { 'Fn::ImportValue': 'x' }, /not supported/],
  ])('refuses %s, naming it', (_case, value, message) => {
    expect(() => evaluateCfn(template, value, deployment)).toThrow(message);
  });

  it('evaluates a whole environment to strings', () => {
    const variables = evaluateEnvironment(
      template,
      { TABLE: { Ref: 'Table' }, SCOPE: { 'Fn::Join': ['', [{ Ref: 'Server' }, '/write']] } },
      deployment,
    );

    expect(variables).toEqual({ TABLE: 'plants-table', SCOPE: 'plants/write' });
  });
});
