import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How one invoke of a function ended: `InvokeResult` of `lambda-process.ts` fits. */
export type FunctionOutcome = {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
};

export type FakeAwsOptions = {
  /** The region every request must be signed for. */
  readonly region: string;
  /** What Lambda's Invoke runs, by the function ARN (qualified with its version) it is called with. */
  readonly functions?: Readonly<Record<string, (event: unknown) => Promise<FunctionOutcome>>>;
  /** What Cognito's DescribeUserPoolClient knows. */
  readonly userPoolClients?: readonly {
    readonly userPoolId: string;
    readonly clientId: string;
    readonly clientSecret: string;
  }[];
  /** The queues SQS knows, by their URL. */
  readonly queues?: readonly string[];
  /** What Secrets Manager's GetSecretValue answers, by the secret's id. */
  readonly secrets?: Readonly<Record<string, string>>;
};

export type AwsService = 'lambda' | 'codedeploy' | 'cognito-idp' | 'sqs' | 'secretsmanager';

export type AwsCall = {
  readonly service: AwsService;
  readonly operation: string;
  /** The request's JSON body: the event for an Invoke, the input for the others. */
  readonly input: unknown;
  /** The function an Invoke named. */
  readonly functionName?: string;
};

export type LifecycleStatusReport = {
  readonly deploymentId: string;
  readonly lifecycleEventHookExecutionId: string;
  readonly status: string;
};

export type FakeAws = {
  /** `AWS_ENDPOINT_URL_<SERVICE>` for every service: how the AWS SDK is pointed here. */
  readonly env: Readonly<Record<string, string>>;
  /** Every signed call answered, in order. */
  calls(): readonly AwsCall[];
  /** What PutLifecycleEventHookExecutionStatus was told, in order. */
  reportedStatuses(): readonly LifecycleStatusReport[];
  /** The next `count` calls to `service` answer 500 InternalFailure, as a service outage does. */
  failNext(service: AwsService, count: number): void;
  close(): Promise<void>;
};

/**
 * Lambda (Invoke), CodeDeploy (PutLifecycleEventHookExecutionStatus), Cognito
 * (DescribeUserPoolClient), SQS (ChangeMessageVisibility) and Secrets Manager (GetSecretValue) on
 * loopback, one server each, speaking the wire protocols the AWS SDK v3 clients speak (REST-JSON
 * for Lambda, JSON 1.0 for SQS, JSON 1.1 for the others) and answering errors the way those
 * services do. Each refuses a request not signed (SigV4) for its own service name and the region,
 * as AWS would.
 */
export async function startFakeAws(options: FakeAwsOptions): Promise<FakeAws> {
  const calls: AwsCall[] = [];
  const reports: LifecycleStatusReport[] = [];
  const failures = new Map<AwsService, number>();
  const failing = (service: AwsService) => {
    const left = failures.get(service) ?? 0;
    if (left > 0) failures.set(service, left - 1);
    return left > 0;
  };

  const lambda = await listen('lambda', options.region, async (request, body, response) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(
      new URL(request.url ?? '/', 'http://x').pathname,
    );
    if (request.method !== 'POST' || !match?.[1]) {
      return restError(response, 404, 'UnknownOperationException', 'Unknown operation');
    }
    const functionName = decodeURIComponent(match[1]);
    const event: unknown = JSON.parse(body || 'null');
    calls.push({ service: 'lambda', operation: 'Invoke', functionName, input: event });
    const run = options.functions?.[functionName];
    if (!run) {
      return restError(
        response,
        404,
        'ResourceNotFoundException',
        `Function not found: ${functionName}`,
      );
    }
    if (request.headers['x-amz-invocation-type'] !== 'RequestResponse') {
      return restError(response, 400, 'InvalidParameterValueException', 'Unsupported type');
    }
    const outcome = await run(event);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-amz-executed-version': functionName.split(':')[7] ?? '$LATEST',
    };
    if (outcome.ok) {
      response.writeHead(200, headers).end(JSON.stringify(outcome.result ?? null));
      return;
    }
    // A handler that threw: Lambda still answers 200, and says so in X-Amz-Function-Error.
    const [firstLine = 'Error'] = (outcome.error ?? 'Error').split('\n');
    response
      .writeHead(200, { ...headers, 'x-amz-function-error': 'Unhandled' })
      .end(JSON.stringify({ errorType: 'Error', errorMessage: firstLine, trace: [] }));
  });

  const codedeploy = await listen('codedeploy', options.region, async (request, body, response) => {
    const operation = jsonTarget(request, 'CodeDeploy_20141006');
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    calls.push({ service: 'codedeploy', operation, input });
    if (operation !== 'PutLifecycleEventHookExecutionStatus') {
      return jsonError(response, 'UnknownOperationException', operation);
    }
    const { deploymentId, lifecycleEventHookExecutionId, status } = input;
    if (
      typeof deploymentId !== 'string' ||
      typeof lifecycleEventHookExecutionId !== 'string' ||
      !['Succeeded', 'Failed'].includes(String(status))
    ) {
      return jsonError(response, 'InvalidLifecycleEventHookExecutionStatusException', body);
    }
    reports.push({ deploymentId, lifecycleEventHookExecutionId, status: String(status) });
    jsonAnswer(response, { lifecycleEventHookExecutionId });
  });

  const cognito = await listen('cognito-idp', options.region, async (request, body, response) => {
    const operation = jsonTarget(request, 'AWSCognitoIdentityProviderService');
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    calls.push({ service: 'cognito-idp', operation, input });
    if (operation !== 'DescribeUserPoolClient') {
      return jsonError(response, 'UnknownOperationException', operation);
    }
    const client = options.userPoolClients?.find(
      (candidate) =>
        candidate.userPoolId === input.UserPoolId && candidate.clientId === input.ClientId,
    );
    if (!client) {
      return jsonError(response, 'ResourceNotFoundException', 'User pool client does not exist.');
    }
    jsonAnswer(response, {
      UserPoolClient: {
        UserPoolId: client.userPoolId,
        ClientId: client.clientId,
        ClientName: 'machine',
        ClientSecret: client.clientSecret,
        AllowedOAuthFlows: ['client_credentials'],
        AllowedOAuthFlowsUserPoolClient: true,
      },
    });
  });

  const sqs = await listen('sqs', options.region, async (request, body, response) => {
    const operation = jsonTarget(request, 'AmazonSQS');
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    calls.push({ service: 'sqs', operation, input });
    if (request.headers['content-type'] !== 'application/x-amz-json-1.0') {
      return jsonError(response, 'InvalidParameterValue', 'SQS speaks JSON 1.0', '1.0');
    }
    if (failing('sqs')) return serviceFailure(response, '1.0');
    if (operation !== 'ChangeMessageVisibility') {
      return jsonError(response, 'UnsupportedOperation', operation, '1.0');
    }
    const { QueueUrl, ReceiptHandle, VisibilityTimeout } = input;
    if (typeof QueueUrl !== 'string' || !options.queues?.includes(QueueUrl)) {
      return jsonError(response, 'QueueDoesNotExist', 'The specified queue does not exist.', '1.0');
    }
    if (typeof ReceiptHandle !== 'string' || ReceiptHandle === '') {
      return jsonError(response, 'ReceiptHandleIsInvalid', 'The receipt handle is invalid.', '1.0');
    }
    if (
      typeof VisibilityTimeout !== 'number' ||
      !Number.isInteger(VisibilityTimeout) ||
      VisibilityTimeout < 0 ||
      VisibilityTimeout > 43_200
    ) {
      return jsonError(
        response,
        'InvalidParameterValue',
        'VisibilityTimeout must be an integer from 0 to 43200.',
        '1.0',
      );
    }
    jsonAnswer(response, {}, '1.0');
  });

  const secretsManager = await listen(
    'secretsmanager',
    options.region,
    async (request, body, response) => {
      const operation = jsonTarget(request, 'secretsmanager');
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      calls.push({ service: 'secretsmanager', operation, input });
      if (failing('secretsmanager')) return serviceFailure(response, '1.1');
      if (operation !== 'GetSecretValue') {
        return jsonError(response, 'UnknownOperationException', operation);
      }
      const id = String(input.SecretId);
      const secret = options.secrets?.[id];
      if (secret === undefined) {
        return jsonError(
          response,
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret.",
        );
      }
      jsonAnswer(response, {
        ARN: id,
        Name: id.split(':').at(-1),
        SecretString: secret,
        VersionId: '00000000-0000-4000-8000-000000000000',
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 1_700_000_000,
      });
    },
  );

  const servers = [lambda, codedeploy, cognito, sqs, secretsManager];
  return {
    env: {
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
      AWS_ENDPOINT_URL_CODEDEPLOY: codedeploy.url,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognito.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
    },
    calls: () => [...calls],
    reportedStatuses: () => [...reports],
    failNext: (service, count) => {
      failures.set(service, count);
    },
    close: async () => {
      await Promise.all(
        servers.map(
          ({ server }) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

type Route = (request: IncomingMessage, body: string, response: ServerResponse) => Promise<void>;

async function listen(
  service: AwsService,
  region: string,
  route: Route,
): Promise<{ server: Server; url: string }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(
      request.headers.authorization ?? '',
    );
    if (scope?.[1] !== region || scope[2] !== service) {
      const message = `not signed for ${service} in ${region}: ${request.headers.authorization}`;
      if (service === 'lambda')
        return restError(response, 403, 'InvalidSignatureException', message);
      return jsonError(response, 'InvalidSignatureException', message);
    }
    try {
      await route(request, body, response);
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The operation a JSON 1.1 request names in `X-Amz-Target: <prefix>.<Operation>`. */
function jsonTarget(request: IncomingMessage, prefix: string): string {
  const target = String(request.headers['x-amz-target'] ?? '');
  return target.startsWith(`${prefix}.`) ? target.slice(prefix.length + 1) : target;
}

type JsonVersion = '1.0' | '1.1';

function jsonAnswer(response: ServerResponse, body: unknown, version: JsonVersion = '1.1'): void {
  response
    .writeHead(200, { 'content-type': `application/x-amz-json-${version}` })
    .end(JSON.stringify(body));
}

/** A JSON service's error: 400 with the error's name in `__type`. */
function jsonError(
  response: ServerResponse,
  type: string,
  message: string,
  version: JsonVersion = '1.1',
): void {
  response
    .writeHead(400, { 'content-type': `application/x-amz-json-${version}` })
    .end(JSON.stringify({ __type: type, message }));
}

/** A JSON service's own failure, which a client retries. */
function serviceFailure(response: ServerResponse, version: JsonVersion): void {
  response
    .writeHead(500, { 'content-type': `application/x-amz-json-${version}` })
    .end(
      JSON.stringify({ __type: 'InternalFailure', message: 'We encountered an internal error.' }),
    );
}

/** Lambda's REST-JSON error: the error's name in `X-Amzn-ErrorType`. */
function restError(response: ServerResponse, status: number, type: string, message: string): void {
  response
    .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
    .end(JSON.stringify({ Type: 'User', Message: message }));
}
