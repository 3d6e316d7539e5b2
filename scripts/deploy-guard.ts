// `npm run -s deploy:guard -- <file> [--allow <LogicalId>]...`: refuses a change set (the JSON of
// `aws cloudformation describe-change-set`) that would delete or replace a resource holding data
// (exit 1 on any REFUSED line, else 0; 2 when not a whole change set). A `Retain` is no loss.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** The resources whose deletion loses what users stored or subscribers rely on. */
export const statefulTypes: ReadonlySet<string> = new Set([
  'AWS::DynamoDB::Table',
  'AWS::DynamoDB::GlobalTable',
  'AWS::SQS::Queue',
  'AWS::SecretsManager::Secret',
  'AWS::Cognito::UserPool',
  'AWS::Cognito::UserPoolClient',
  'AWS::Cognito::UserPoolDomain',
  'AWS::ApiGatewayV2::DomainName',
  'AWS::ApiGatewayV2::ApiMapping',
]);

const retained = new Set(['Retain', 'ReplaceAndRetain']);

type Loss = { readonly logicalId: string; readonly type: string; readonly why: string };

/** The stateful resources a change set would remove or replace, in its order. */
export function lossesOf(changeSet: unknown): Loss[] {
  if (!isObject(changeSet) || !Array.isArray(changeSet.Changes)) {
    throw new Error('not the output of describe-change-set: no "Changes" array');
  }
  if (changeSet.NextToken !== undefined) {
    throw new Error('the change set has more pages (NextToken): describe all of them');
  }
  if (changeSet.Status === 'FAILED' && changeSet.Changes.length > 0) {
    throw new Error(`the change set failed: ${String(changeSet.StatusReason)}`);
  }
  return changeSet.Changes.flatMap((change, index): Loss[] => {
    const resource = isObject(change) ? change.ResourceChange : undefined;
    if (!isObject(change) || change.Type !== 'Resource' || !isObject(resource)) {
      throw new Error(`Changes[${index}] is not a resource change`);
    }
    const { Action, LogicalResourceId, ResourceType, Replacement, PolicyAction } = resource;
    if (typeof Action !== 'string' || typeof LogicalResourceId !== 'string') {
      throw new Error(`Changes[${index}] has no Action or LogicalResourceId`);
    }
    if (typeof ResourceType !== 'string') {
      throw new Error(`Changes[${index}] (${LogicalResourceId}) has no ResourceType`);
    }
    if (!statefulTypes.has(ResourceType)) return [];
    if (typeof PolicyAction === 'string' && retained.has(PolicyAction)) return [];
    const why =
      Action === 'Remove'
        ? 'removed'
        : Action === 'Modify' && (Replacement === 'True' || Replacement === 'Conditional')
          ? `replaced (Replacement ${Replacement})`
          : Action === 'Dynamic'
            ? 'may be replaced (Action Dynamic: CloudFormation cannot tell yet)'
            : undefined;
    if (why === undefined) return [];
    const policy = typeof PolicyAction === 'string' ? `, PolicyAction ${PolicyAction}` : '';
    return [{ logicalId: LogicalResourceId, type: ResourceType, why: `${why}${policy}` }];
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The command's exit code and what it prints to stdout and stderr. */
export function runDeployGuard(argv: readonly string[]) {
  let file: string | undefined;
  let allowed: string[];
  try {
    const { positionals, values } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { allow: { type: 'string', multiple: true } },
    });
    if (positionals.length !== 1) throw new Error('name exactly one file');
    [file] = positionals;
    allowed = (values.allow ?? []).flatMap((ids) => ids.split(/[\s,]+/)).filter(Boolean);
  } catch (error) {
    const usage = 'usage: npm run -s deploy:guard -- <change-set.json> [--allow <LogicalId>]...';
    return { code: 2, out: '', err: `${(error as Error).message}\n${usage}\n` };
  }
  let losses: Loss[];
  try {
    losses = lossesOf(JSON.parse(readFileSync(file ?? '', 'utf8')));
  } catch (error) {
    return { code: 2, out: '', err: `deploy:guard: ${file}: ${(error as Error).message}\n` };
  }
  const lines = losses.map(
    ({ logicalId, type, why }) =>
      `${allowed.includes(logicalId) ? 'ALLOWED' : 'REFUSED'}  ${logicalId}  ${type}  ${why}`,
  );
  const refused = lines.filter((line) => line.startsWith('REFUSED')).length;
  const summary =
    refused > 0
      ? `${refused} stateful resource(s) would lose their data; the stack is left as it was`
      : `no stateful resource is lost without leave (${losses.length} allowed)`;
  const out = [...lines, summary].join('\n');
  return { code: refused > 0 ? 1 : 0, out: `${out}\n`, err: '' };
}

if (import.meta.main) {
  const { code, out, err } = runDeployGuard(process.argv.slice(2));
  process.stdout.write(out);
  process.stderr.write(err);
  process.exitCode = code;
}
