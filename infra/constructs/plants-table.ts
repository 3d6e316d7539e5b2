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
  /** The new-plant webhook reads its events from this stream; toggling it updates in place. */
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
      deletionProtection: true,
      // Not RETAIN_ON_UPDATE_OR_DELETE: the rollback of a failed first deploy would then delete
      // the table, which deletion protection refuses, and the rollback would fail; the empty table
      // RETAIN leaves instead costs nothing (docs/deploy.md says how to remove it).
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: TableEncryption.AWS_MANAGED,
      stream: props.stream,
    });
    // By the output key docs/deploy.md names.
    new CfnOutput(this, 'TableName', {
      description: 'The DynamoDB table (retained when the stack is deleted)',
      value: this.table.tableName,
    }).overrideLogicalId('PlantsTableName');
  }
}
