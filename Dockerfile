# One image for the API, the worker, the inbox SMTP listener (npx tsx inbox.ts) and one-off commands (migrate, bootstrap).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY . .
# Workers load this bundle instead of bundling workflow code at every start.
RUN npx tsx scripts/bundle-workflows.ts /app/workflow-bundle.js
ENV WORKFLOW_BUNDLE_PATH=/app/workflow-bundle.js
EXPOSE 3000 2525
CMD ["npx", "tsx", "server.ts"]
