import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { onlyResource, synthStack } from '../support/synth.ts';

const domainName = 'plants.example.com';
const certificateArn =
  'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c';

let template: Template;

beforeAll(() => {
  template = synthStack({ customDomain: { domainName, certificateArn } }).template;
});

describe('ApiCustomDomain', () => {
  it('is a regional domain name with the given certificate and TLS 1.2 at least', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: domainName,
      DomainNameConfigurations: [
        { CertificateArn: certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' },
      ],
    });
  });

  it("maps the domain's root to the API's $default stage", () => {
    const [apiId] = onlyResource(template, 'AWS::ApiGatewayV2::Api');
    const [stageId] = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
    const [domainId] = onlyResource(template, 'AWS::ApiGatewayV2::DomainName');
    const [, mapping] = onlyResource(template, 'AWS::ApiGatewayV2::ApiMapping');
    expect(mapping.Properties).toEqual({
      ApiId: { Ref: apiId },
      DomainName: { Ref: domainId },
      Stage: '$default',
    });
    // A stage name, not a reference: the mapping waits for the stage explicitly.
    expect(mapping.DependsOn).toEqual([stageId]);
  });

  it('outputs the name to call, and the target and zone to point DNS at', () => {
    const [domainId] = onlyResource(template, 'AWS::ApiGatewayV2::DomainName');
    template.hasOutput('CustomDomainUrl', { Value: `https://${domainName}/` });
    template.hasOutput('CustomDomainTarget', {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
    });
    template.hasOutput('CustomDomainHostedZoneId', {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
    });
  });

  it('keeps the execute-api URL as ApiUrl, which works before DNS does', () => {
    const [apiId] = onlyResource(template, 'AWS::ApiGatewayV2::Api');
    expect(template.toJSON().Outputs.ApiUrl.Value['Fn::Join'][1]).toContain('https://');
    expect(JSON.stringify(template.toJSON().Outputs.ApiUrl)).toContain(apiId);
    const [, api] = onlyResource(template, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties.DisableExecuteApiEndpoint).not.toBe(true);
  });

  it('changes nothing without a domain name', () => {
    const { template: plain } = synthStack();
    plain.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    plain.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    expect(Object.keys(plain.toJSON().Outputs)).not.toContain('CustomDomainTarget');
    const domainTypes = ['AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping'];
    const withoutDomain = (from: Template) =>
      Object.fromEntries(
        Object.entries(from.toJSON().Resources as Record<string, { Type: string }>).filter(
          ([, resource]) => !domainTypes.includes(resource.Type),
        ),
      );
    expect(withoutDomain(template)).toEqual(withoutDomain(plain));
  });
});
