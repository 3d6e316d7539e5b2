import { Aws, CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import {
  AccountRecovery,
  type CfnUserPool,
  FeaturePlan,
  OAuthScope,
  ResourceServerScope,
  UserPool,
  UserPoolClientIdentityProvider,
} from 'aws-cdk-lib/aws-cognito';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { type Operation, routeKey } from '../../functions/operations.ts';
import type { ApiScope, TokenIssuerConfig } from './operation-function.ts';

/** The resource server every scope belongs to: `plants/read` is its scope `read`. */
const resourceServerIdentifier = 'plants';

export interface MachineAuthProps {
  /** `https://<prefix>.auth.<region>.amazoncognito.com`: unique in the region across all accounts. */
  readonly domainPrefix: string;
  readonly operations: readonly Operation[];
}

/** A Cognito user pool used only as the OAuth 2.0 server of machine clients. */
export class MachineAuth extends Construct {
  readonly userPool: IUserPool;
  readonly client: IUserPoolClient;
  readonly scopes: Readonly<Partial<Record<ApiScope, string>>>;
  readonly tokenUrl: string;
  readonly tokenIssuer: TokenIssuerConfig;

  constructor(scope: Construct, id: string, props: MachineAuthProps) {
    super(scope, id);

    const userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      // No one signs in with a password here; should anyone ever be added, it is strong.
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      // No users: threat protection (PLUS) would guard nothing.
      featurePlan: FeaturePlan.LITE,
      accountRecovery: AccountRecovery.NONE,
      // Nothing in it is irreplaceable: a new pool means a new client id and secret, not lost data.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.userPool = userPool;
    // Pinned: under the UPDATED issuer format, every token would be a 401.
    (userPool.node.defaultChild as CfnUserPool).issuerConfiguration = { type: 'ORIGINAL' };

    const { operations } = props;
    const required = [...new Set(operations.map((operation) => operation.scope))];
    const scopes = required.map((scope) => {
      const [identifier, scopeName = ''] = scope.split('/');
      if (identifier !== resourceServerIdentifier) {
        throw new Error(`scope ${scope} is not one of the resource server "plants"`);
      }
      const routes = operations.filter((operation) => operation.scope === scope).map(routeKey);
      return {
        scope,
        serverScope: new ResourceServerScope({ scopeName, scopeDescription: routes.join(', ') }),
      };
    });
    const resourceServer = userPool.addResourceServer('ResourceServer', {
      identifier: resourceServerIdentifier,
      userPoolResourceServerName: 'Plant Store API',
      scopes: scopes.map(({ serverScope }) => serverScope),
    });
    const oauthScopes = scopes.map(({ scope, serverScope }) => ({
      scope,
      oauthScope: OAuthScope.resourceServer(resourceServer, serverScope),
    }));
    this.scopes = Object.fromEntries(
      oauthScopes.map(({ scope, oauthScope }) => [scope, oauthScope.scopeName]),
    );

    const client = userPool.addClient('MachineClient', {
      generateSecret: true,
      // Left unset, Cognito would enable sign-in flows a machine client never uses.
      authFlows: {
        user: false,
        userPassword: false,
        adminUserPassword: false,
        userSrp: false,
        custom: false,
      },
      oAuth: {
        flows: { clientCredentials: true },
        scopes: oauthScopes.map(({ oauthScope }) => oauthScope),
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      accessTokenValidity: Duration.hours(1),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
    // Cognito rejects a client whose scopes name a resource server that does not exist yet.
    client.node.addDependency(resourceServer);
    this.client = client;

    const domain = userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
    });
    this.tokenUrl = `${domain.baseUrl()}/oauth2/token`;

    const issuer = userPool.userPoolProviderUrl;
    this.tokenIssuer = {
      issuer,
      jwksUrl: `${issuer}/.well-known/jwks.json`,
      // Cognito access tokens carry no `aud`; the handler matches `client_id` instead.
      audiences: [client.userPoolClientId],
      scopes: this.scopes,
    };

    // By the output keys the deploy workflow and docs/deploy.md read.
    new CfnOutput(this, 'TokenUrl', {
      description: `OAuth 2.0 token endpoint (client_credentials grant, scopes ${Object.keys(this.scopes).join(' ')})`,
      value: this.tokenUrl,
    }).overrideLogicalId('TokenUrl');
    new CfnOutput(this, 'UserPoolId', {
      description: 'The user pool of the machine client',
      value: userPool.userPoolId,
    }).overrideLogicalId('UserPoolId');
    new CfnOutput(this, 'ClientId', {
      description: 'The machine client id',
      value: client.userPoolClientId,
    }).overrideLogicalId('ClientId');
    new CfnOutput(this, 'ClientSecretCommand', {
      description: 'Prints the machine client secret (needs cognito-idp:DescribeUserPoolClient)',
      value: `aws cognito-idp describe-user-pool-client --region ${Aws.REGION} --user-pool-id ${userPool.userPoolId} --client-id ${client.userPoolClientId} --query UserPoolClient.ClientSecret --output text`,
    }).overrideLogicalId('ClientSecretCommand');

    Validations.of(userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA protects user sign-ins; this pool has no users and self sign-up is disabled. ' +
          'Machine clients use the OAuth 2.0 client-credentials grant, which has no second factor.',
      },
      {
        id: 'AwsSolutions-COG3',
        reason:
          'Threat protection (advanced security) scores user sign-ins and needs the PLUS plan; ' +
          'there are none here, only client-credentials token requests with a client secret.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The PLUS plan exists for threat protection of user sign-ins (see COG3); a pool that ' +
          'only serves client-credentials tokens gains nothing from it at a per-user price.',
      },
    );
  }

  /** Lets `grantee` read the machine client's settings, its secret included, in this pool only. */
  grantReadClientSecret(grantee: IGrantable): Grant {
    return this.userPool.grant(grantee, 'cognito-idp:DescribeUserPoolClient');
  }
}
