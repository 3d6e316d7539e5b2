import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { jsonLogger } from '../log.ts';
import { loadHookConfigOrError } from './hook-config.ts';
import { makePreTrafficHook } from './pre-traffic-hook.ts';
import { tableFixture } from './table-fixture.ts';

// Config and clients once per container; the SDK reads region, credentials, endpoints from env.

export const handler = makePreTrafficHook({
  config: loadHookConfigOrError(process.env),
  lambda: new LambdaClient({}),
  codedeploy: new CodeDeployClient({}),
  cognito: new CognitoIdentityProviderClient({}),
  fixture: (tableName) => tableFixture(process.env, tableName),
  log: jsonLogger,
});
