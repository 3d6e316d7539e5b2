// First: opens the cold request's connections before the operation's modules evaluate.
import { lambdaHandler } from '../lambda-handler.ts';
import { makeHandler } from './get-plant.ts';

export const handler = lambdaHandler(makeHandler);
