/** FLOOR: the least a Lambda handler can be; its cold init is Node's own start-up. */
export const handler = async () => ({ statusCode: 200, body: '{}' });
