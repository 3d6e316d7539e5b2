import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCfn } from '../../bench/support/cloudformation.ts';
import { operations, routeKey } from '../../functions/operations.ts';
import { StageConfigError } from '../../infra/stage-config.ts';
import { onlyResource, synthStack } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  template = synthStack().template;
});

const logicalId = (type: string): string => onlyResource(template, type)[0];

/** The scopes the operations require, in the order they first come in the list. */
const requiredScopes = [...new Set(operations.map(({ scope }) => scope))];
/** `plants/write` is the resource server's scope `write`. */
const scopeName = (scope: string) => scope.replace(/^plants\//, '');
/** The routes that require `scope`, as its description lists them. */
const routesOf = (scope: string) =>
  operations
    .filter((operation) => operation.scope === scope)
    .map(routeKey)
    .join(', ');

/** Stack ids as CloudFormation gives them: the same stack name, deployed twice. */
const firstGuid = '51af3dc0-da77-11e4-872e-1234567db123';
const secondGuid = '9b4c0e10-3f2a-11f0-9a1b-0a1b2c3d4e5f';

/** A physical name as CloudFormation evaluates it in the stack `stackName` with this stack GUID. */
const evaluateIn = (value: unknown, stackName: string, guid: string): string =>
  evaluateCfn({ Resources: {} }, value, {
    region: 'eu-west-1',
    accountId: '123456789012',
    resources: {},
    stackName,
    stackId: `arn:aws:cloudformation:eu-west-1:123456789012:stack/${stackName}/${guid}`,
  }) as string;

describe('MachineAuth scopes', () => {
  it.each(requiredScopes.map((scope) => [scope, routesOf(scope)]))(
    'defines the scope %s on the resource server `plants`, described by its routes: %s',
    (scope, routes) => {
      template.resourceCountIs('AWS::Cognito::UserPoolResourceServer', 1);
      const [, server] = onlyResource(template, 'AWS::Cognito::UserPoolResourceServer');

      expect(server.Properties).toMatchObject({
        Identifier: 'plants',
        UserPoolId: { Ref: logicalId('AWS::Cognito::UserPool') },
      });
      expect(server.Properties.Scopes).toContainEqual({
        ScopeName: scopeName(scope),
        ScopeDescription: routes,
      });
    },
  );

  it('defines exactly the scopes the operations require', () => {
    const [, server] = onlyResource(template, 'AWS::Cognito::UserPoolResourceServer');
    const defined = (server.Properties.Scopes as { ScopeName: string }[]).map(
      ({ ScopeName }) => `plants/${ScopeName}`,
    );

    expect(defined.sort()).toEqual([...new Set(operations.map(({ scope }) => scope))].sort());
  });

  it(`has one client with a secret, only the client-credentials grant, and ${requiredScopes.join(' and ')}`, () => {
    const server = { Ref: logicalId('AWS::Cognito::UserPoolResourceServer') };
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: requiredScopes.map((scope) => ({
        'Fn::Join': ['', [server, `/${scopeName(scope)}`]],
      })),
    });
  });

  it('lets the client ask for a scope only once the resource server defines it', () => {
    const [, client] = onlyResource(template, 'AWS::Cognito::UserPoolClient');

    expect(client.DependsOn).toContain(logicalId('AWS::Cognito::UserPoolResourceServer'));
  });

  it('names every scope in the token URL output', () => {
    template.hasOutput('TokenUrl', {
      Description: `OAuth 2.0 token endpoint (client_credentials grant, scopes ${requiredScopes.join(' ')})`,
    });
  });
});

describe('MachineAuth pool', () => {
  it('allows the client no sign-in flow, only refresh (unset, Cognito would allow SRP and custom)', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
    });
  });

  it('pins the ORIGINAL issuer format, the `iss` that AUTH_ISSUER (the ProviderURL) expects', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      IssuerConfiguration: { Type: 'ORIGINAL' },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          AUTH_ISSUER: { 'Fn::GetAtt': [logicalId('AWS::Cognito::UserPool'), 'ProviderURL'] },
        }),
      },
    });
  });

  it('lets no one sign up', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UserPoolName: Match.absent(),
    });
  });

  it('serves the token endpoint at plants-<stage>-<stack instance id>, without the account id', () => {
    const [, domain] = onlyResource(template, 'AWS::Cognito::UserPoolDomain');
    expect(domain.Properties.UserPoolId).toEqual({ Ref: logicalId('AWS::Cognito::UserPool') });

    expect(JSON.stringify(domain.Properties.Domain)).not.toContain('AWS::AccountId');
    expect(evaluateIn(domain.Properties.Domain, 'PlantStore-test', firstGuid)).toBe(
      'plants-test-51af3dc0da7711e4872e1234567db123',
    );
  });

  it('gives the longest stage a valid domain prefix, a new one for every stack instance', () => {
    const stage = 'a-twenty-char-stage1';
    expect(stage).toHaveLength(20);
    const { template: longest } = synthStack({ stage });
    const domain = Object.values(longest.findResources('AWS::Cognito::UserPoolDomain'))[0]
      ?.Properties.Domain as unknown;

    const prefixes = [firstGuid, secondGuid].map((guid) =>
      evaluateIn(domain, `PlantStore-${stage}`, guid),
    );

    // Cognito's rule for a domain prefix, reserved words included.
    for (const prefix of prefixes) {
      expect(prefix).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
      expect(prefix).not.toMatch(/aws|amazon|cognito/);
    }
    expect(prefixes[0]).not.toBe(prefixes[1]);
  });

  it('takes the domain prefix from props when given', () => {
    const { template: custom } = synthStack({ authDomainPrefix: 'acme-plants' });
    custom.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-plants' });
  });

  it.each(['laws', 'amazon', 'cognito-dev'])(
    'refuses at synth the stage %s, which Cognito would refuse in the default prefix at deploy',
    (stage) => {
      const synth = () => synthStack({ stage });
      expect(synth).toThrow(StageConfigError);
      expect(synth).toThrow(/contains "(aws|amazon|cognito)".*-c authDomainPrefix=/);
    },
  );

  it('deploys the stage laws with an explicit prefix, or with an external issuer', () => {
    const { template: prefixed } = synthStack({
      stage: 'laws',
      authDomainPrefix: 'plants-legal',
    });
    prefixed.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'plants-legal' });

    const { template: external } = synthStack({
      stage: 'laws',
      externalIssuer: { issuer: 'https://issuer.example.com', audiences: ['plants'] },
    });
    external.resourceCountIs('AWS::Cognito::UserPoolDomain', 0);
  });
});
