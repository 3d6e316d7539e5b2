import type { Duration } from 'aws-cdk-lib';
import { MathExpression, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';

/**
 * Throttled requests on the table, summed over the calls the functions make (`dynamodb:PutItem`;
 * the `Operation` dimension is the action's name). Each series is FILLed with 0 before the sum:
 * DynamoDB publishes a datapoint only for an operation that ran, and a plain `putitem + getitem`
 * has no value in any period without a GetItem, so an alarm on it could never fire.
 */
export function tableThrottledRequests(
  table: ITable,
  period: Duration,
  calls: readonly `dynamodb:${string}`[],
): MathExpression {
  const operations = [...new Set(calls.map((call) => call.replace(/^dynamodb:/, '')))];
  const usingMetrics = Object.fromEntries(
    operations.map((operation) => [
      operation.toLowerCase(),
      table.metric('ThrottledRequests', {
        dimensionsMap: { TableName: table.tableName, Operation: operation },
        statistic: Stats.SUM,
        period,
      }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    period,
    label: `throttled ${operations.join(' + ')}`,
  });
}
