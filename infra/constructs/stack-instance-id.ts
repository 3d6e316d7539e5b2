import { Fn, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * 32 lowercase hex digits that name this stack instance: the GUID in the stack id, without its
 * hyphens. It differs between accounts, regions, stages and a redeploy after `cdk destroy`, and
 * unlike the account id it says nothing about the owner, so it can go into a public URL.
 */
export function stackInstanceId(scope: IConstruct): string {
  const guid = Fn.select(2, Fn.split('/', Stack.of(scope).stackId));
  return Fn.join('', Fn.split('-', guid));
}
