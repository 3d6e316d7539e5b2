import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import type { Operation } from '../../functions/operations.ts';
import { projectRoot } from '../../infra/bundling/bundling.ts';
import { operationConstructId } from '../../infra/constructs/operation-function.ts';
import { PlantStoreStack, type PlantStoreStackProps } from '../../infra/plant-store-stack.ts';

/** The feature flags `npx cdk synth` runs with, so tests see the template a deploy would. */
const cdkJsonContext = (
  JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export type SynthOptions = Partial<PlantStoreStackProps>;

export type Synthesized = {
  readonly app: App;
  readonly stack: PlantStoreStack;
  readonly template: Template;
};

/**
 * Builds the stack in an app of its own, not yet synthesized. Two things `cdk synth` does are left
 * out, each checked once elsewhere: bundling (CDK stages a placeholder asset; shipped-asset.test.ts
 * runs the assets `cdk synth` writes), and aws-cdk-lib's CloudFormation validation, which changes
 * nothing in the template and is most of a synth's time (app.test.ts reads its report on the app
 * `cdk synth` builds, every optional resource included).
 */
export function buildStack(props: SynthOptions = {}): { app: App; stack: PlantStoreStack } {
  const app = new App({
    context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const stage = props.stage ?? 'test';
  return { app, stack: new PlantStoreStack(app, `PlantStore-${stage}`, { ...props, stage }) };
}

/** What each configuration synthesized to, in this test file: a synthesized app is read only. */
const synthesizedBefore = new Map<string, Synthesized>();

/**
 * The stack synthesized with these options: once per configuration in a test file (Vitest gives
 * each file its own modules), so a file may ask for the same variant in as many tests as read it.
 * A test that adds to the tree builds its own (`buildStack`).
 */
export function synthStack(options: SynthOptions = {}): Synthesized {
  const key = JSON.stringify(options, sortedKeys);
  const before = synthesizedBefore.get(key);
  if (before !== undefined) return before;
  const { app, stack } = buildStack(options);
  const synthesized = { app, stack, template: Template.fromStack(stack) };
  synthesizedBefore.set(key, synthesized);
  return synthesized;
}

/** A `JSON.stringify` replacer that writes every object's keys in order: one key per configuration. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A resource as a synthesized template holds it. */
export type TemplateResource = {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string[];
  readonly UpdatePolicy?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
};

/** The template's one resource of `type`, as `[logical id, resource]`; fails unless there is exactly one. */
export function onlyResource(template: Template, type: string): [string, TemplateResource] {
  const entries = Object.entries(template.findResources(type)) as [string, TemplateResource][];
  expect(entries).toHaveLength(1);
  return entries[0] as [string, TemplateResource];
}

/**
 * The template's one resource of `type` whose logical id starts with `idPrefix`, the construct path
 * without its hash (`CreatePlantFunction`), as `[logical id, resource]`; fails unless exactly one.
 */
export function resourceAt(
  template: Template,
  type: string,
  idPrefix: string,
): [string, TemplateResource] {
  const entries = (
    Object.entries(template.findResources(type)) as [string, TemplateResource][]
  ).filter(([id]) => id.startsWith(idPrefix));
  expect(entries, `${type} ${idPrefix}*`).toHaveLength(1);
  return entries[0] as [string, TemplateResource];
}

/**
 * One of the operation's resources by its construct path without the hash: `prefix`, the
 * operation's construct id, `suffix` (`CreatePlant` + `Function`, `Alarms` + `CreatePlant` +
 * `FunctionErrors`), as `[logical id, resource]`; fails unless exactly one.
 */
export function operationResource(
  template: Template,
  type: string,
  operation: Pick<Operation, 'name'>,
  suffix: string,
  prefix = '',
): [string, TemplateResource] {
  return resourceAt(template, type, `${prefix}${operationConstructId(operation)}${suffix}`);
}

/** The logical id of the role the resource's `Role` property names (`{Fn::GetAtt: [role, Arn]}`). */
export function roleOf(resource: TemplateResource): string {
  return (resource.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

/** The statements of the policies attached to the role `roleId`, and only to it. */
export function roleStatements(template: Template, roleId: string): PolicyStatement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter(
      (policy) =>
        JSON.stringify((policy as TemplateResource).Properties.Roles) ===
        JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap(
      (policy) =>
        ((policy as TemplateResource).Properties.PolicyDocument as { Statement: PolicyStatement[] })
          .Statement,
    );
}

export type PolicyStatement = {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
};

/**
 * A template value as text, with each intrinsic shown as a placeholder such as `Ref(Fn1234)`, so
 * that an `Fn::Join`-built value (a dashboard body) can be read as the text CloudFormation makes
 * of it.
 */
export function renderTemplateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map(renderTemplateValue).join(join[0]);
    const ref = (value as { Ref?: string }).Ref;
    if (ref !== undefined) return `Ref(${ref})`;
    const getAtt = (value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt'];
    if (getAtt) return `GetAtt(${getAtt.join('.')})`;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}
