import { Fn, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * 32 lowercase hex digits that name this stack instance: the GUID CloudFormation puts in the
 * stack id (`arn:…:stack/<name>/<guid>`), without its hyphens. It is known only at deploy time, so
 * the template stays environment-agnostic; it differs between accounts, regions and stages, and
 * between a stack and the same stack deployed again after `cdk destroy`. Unlike the account id it
 * says nothing about the owner, so it can go into a public URL.
 */
export function stackInstanceId(scope: IConstruct): string {
  const guid = Fn.select(2, Fn.split('/', Stack.of(scope).stackId));
  return Fn.join('', Fn.split('-', guid));
}
