import type { Duration } from 'aws-cdk-lib';
import { MathExpression, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';

/**
 * Throttled PutItem plus GetItem requests on the table, the two calls the function makes.
 *
 * Each operation's series is FILLed with 0 before the sum. DynamoDB publishes a datapoint only for
 * an operation that ran, and on real DynamoDB the function rarely calls GetItem: a failed
 * condition returns the stored item with the PutItem answer. A plain `putitem + getitem` has no
 * value in any period without a GetItem, so an alarm on it could never fire.
 */
export function tableThrottledRequests(table: ITable, period: Duration): MathExpression {
  const throttled = (operation: Operation) =>
    table.metric('ThrottledRequests', {
      dimensionsMap: { TableName: table.tableName, Operation: operation },
      statistic: Stats.SUM,
      period,
    });
  return new MathExpression({
    expression: 'FILL(putitem, 0) + FILL(getitem, 0)',
    usingMetrics: {
      putitem: throttled(Operation.PUT_ITEM),
      getitem: throttled(Operation.GET_ITEM),
    },
    period,
    label: 'throttled PutItem + GetItem',
  });
}
