import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { jsonLogger } from '../log.ts';
import { loadHookConfigOrError } from './hook-config.ts';
import { makePreTrafficHook } from './pre-traffic-hook.ts';
import { tableFixture } from './table-fixture.ts';

/**
 * The Lambda entry point of the BeforeAllowTraffic hook. The configuration is read once, and the
 * AWS SDK's clients are built once, per container: region, credentials and (in tests) endpoints
 * come from the variables Lambda sets, as the SDK reads them.
 */
export const handler = makePreTrafficHook({
  config: loadHookConfigOrError(process.env),
  lambda: new LambdaClient({}),
  codedeploy: new CodeDeployClient({}),
  cognito: new CognitoIdentityProviderClient({}),
  fixture: (tableName) => tableFixture(process.env, tableName),
  log: jsonLogger,
});
