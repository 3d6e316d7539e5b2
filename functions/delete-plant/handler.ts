// PLACEHOLDER, not the operation: the real delete-plant handler (built on another branch) replaces this
// file at merge. It exists only so that the stack can bundle and synthesize the function.
export const handler = async () => ({ statusCode: 501, body: '' });
