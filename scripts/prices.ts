// AWS list prices (us-east-1, USD, no free tier), written offline: check the pages below first.
export const prices = {
  date: '2026-07-01',
  region: 'us-east-1',
  sources: [
    'https://aws.amazon.com/cloudwatch/pricing/',
    'https://aws.amazon.com/api-gateway/pricing/',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/xray/pricing/',
    'https://aws.amazon.com/cognito/pricing/',
    'https://aws.amazon.com/secrets-manager/pricing/',
    'https://aws.amazon.com/sqs/pricing/',
    'https://aws.amazon.com/eventbridge/pricing/',
  ],
  cloudwatch: {
    /** A standard-resolution alarm, per metric it reads (a metric-math alarm pays for each). */
    alarmMetricMonth: 0.1,
    /** A custom metric (one name and set of dimension values), prorated by the hours it gets data. */
    customMetricMonth: 0.3,
    dashboardMonth: 3,
    /** The free tier's dashboards hold up to this many metrics each. */
    freeTierDashboardMetrics: 50,
    logIngestionGb: 0.5,
    logStorageGbMonth: 0.03,
  },
  apiGateway: {
    /** HTTP API, the first 300 million a month; each 512 KB of a request counts as one. */
    httpRequestsPerMillion: 1,
  },
  lambda: {
    /** arm64. */
    gbSecond: 0.0000133334,
    requestsPerMillion: 0.2,
  },
  dynamodb: {
    /** On-demand, per million request units. */
    writeUnitsPerMillion: 0.625,
    readUnitsPerMillion: 0.125,
  },
  xray: {
    tracesRecordedPerMillion: 5,
    /** X-Ray's default sampling rule, which the functions use: this many a second, then a share. */
    reservoirPerSecond: 1,
    fixedRate: 0.05,
  },
  cognito: {
    /** A machine-to-machine app client (client credentials), per month. */
    machineClientMonth: 6,
    /** Each access token the client-credentials grant issues. */
    tokenRequest: 0.00225,
  },
  secretsManager: {
    secretMonth: 0.4,
    apiCallsPer10k: 0.05,
  },
  sqs: {
    /** Standard queue requests, per million; each 64 KB of a message counts as one. */
    requestsPerMillion: 0.4,
  },
  pipes: {
    /** EventBridge Pipes, per million requests after filtering, in 64 KB chunks. */
    requestsPerMillion: 0.4,
  },
} as const;
