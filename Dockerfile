# One image for both scale-out roles; docker-compose.yml runs it as `--role api` and `--role worker`.
# Temporal and PostgreSQL come from their own services (TEMPORAL_ADDRESS, DATABASE_URL), so no CLI is installed.
FROM node:20-bookworm-slim
WORKDIR /app
COPY . .
# npm ci, the Prisma client and the compiled service (dist/): the image runs JavaScript, not TypeScript.
RUN node scripts/setup.mjs --no-temporal
# Two glibc malloc arenas instead of up to eight per core (one per thread of the Temporal core, libvips, libuv): see
# README, Memory.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 MALLOC_ARENA_MAX=2
EXPOSE 3000
ENTRYPOINT ["node", "scripts/start.mjs"]
CMD ["--role", "api"]
