import { CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import {
  AttributeType,
  BillingMode,
  type StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

export interface PlantsTableProps {
  /**
   * Keep the table, and its data, when the stack is deleted or the resource replaced. Not
   * RETAIN_ON_UPDATE_OR_DELETE: the rollback of a failed first deploy would then delete the
   * table, which deletion protection refuses, and the rollback would fail; the empty table it
   * leaves instead costs nothing (docs/deploy.md says how to remove it).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Refuse DeleteTable calls, from the console or a script, until this is turned off.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Keep a stream of the table's changes, as this view of each item, for 24 hours: what the
   * new-plant webhook reads its events from. Turning it on or off updates the table in place.
   * @default - no stream
   */
  readonly stream?: StreamViewType;
}

/**
 * The one table of plants, keyed by the plant's int64 `id` (a DynamoDB Number keeps all 19 digits
 * exactly). No physical name: CloudFormation derives one from the stack, so stages never clash.
 */
export class PlantsTable extends Construct {
  readonly table: ITable;

  constructor(scope: Construct, id: string, props: PlantsTableProps = {}) {
    super(scope, id);
    // The id 'Table' is part of the logical id; renaming it would create a new, empty table.
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'id', type: AttributeType.NUMBER },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      encryption: TableEncryption.AWS_MANAGED,
      stream: props.stream,
    });
    // The stack's output, by the key docs/deploy.md names.
    new CfnOutput(this, 'TableName', {
      description: 'The DynamoDB table (retained when the stack is deleted)',
      value: this.table.tableName,
    }).overrideLogicalId('PlantsTableName');
  }
}
