import { CfnOutput } from 'aws-cdk-lib';
import type { IHttpApi, IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { ApiMapping, DomainName, EndpointType, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';

export interface ApiCustomDomainProps {
  readonly api: IHttpApi;
  readonly stage: IHttpStage;
  readonly domainName: string;
  /** In the stack's region: a regional endpoint does not take us-east-1's, as CloudFront does. */
  readonly certificateArn: string;
}

/**
 * The API on a name of the team's own: a regional domain name with TLS 1.2 at least, mapped at its
 * root to the stage. DNS stays outside the stack, wherever the team's zone is hosted.
 */
export class ApiCustomDomain extends Construct {
  constructor(scope: Construct, id: string, props: ApiCustomDomainProps) {
    super(scope, id);

    const domain = new DomainName(this, 'DomainName', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new ApiMapping(this, 'Mapping', { api: props.api, domainName: domain, stage: props.stage });

    // By the output keys docs/deploy.md names.
    new CfnOutput(this, 'Url', {
      description: 'The API on its own name, once DNS points there; the plants are at <url>plants',
      value: `https://${props.domainName}/`,
    }).overrideLogicalId('CustomDomainUrl');
    new CfnOutput(this, 'Target', {
      description: `Point ${props.domainName} here: a CNAME, or a Route 53 alias record`,
      value: domain.regionalDomainName,
    }).overrideLogicalId('CustomDomainTarget');
    new CfnOutput(this, 'HostedZoneId', {
      description: 'The hosted zone of CustomDomainTarget, for a Route 53 alias record',
      value: domain.regionalHostedZoneId,
    }).overrideLogicalId('CustomDomainHostedZoneId');
  }
}
