import { createJwtVerifier } from '../../functions/auth/token-verifier.ts';
import { loadConfig } from '../../functions/config.ts';
import { makeHandler } from '../../functions/create-plant/create-plant.ts';
import type { PlantStore } from '../../functions/plants/plant-store.ts';

/** The shipped handler's whole chain over a store that does nothing: its own cost without I/O. */
const config = loadConfig(process.env);

const noopStore: Pick<PlantStore, 'create'> = {
  create: async (plant) => ({
    plant: plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
    outcome: 'created',
  }),
};

export const handler = makeHandler({
  store: noopStore,
  verifyToken: createJwtVerifier(config.auth),
  requiredScope: config.auth.requiredScope,
});
