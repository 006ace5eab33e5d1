#!/usr/bin/env bash
# The artifact-delivery walk-through of README.md against `npm start`:
#   bash scripts/delivery-walkthrough.sh [http://localhost:3000]     (needs curl and jq)
set -euo pipefail
API=${1:-http://localhost:3000}/v1
source "$(dirname "$0")/lib.sh"
new_team deliver

echo '# The agent sends email through the sandbox provider (it records messages in the outbox)'
curl -s -X PUT "$API/agents/$AGENT/integrations/email" "${H[@]}" "${J[@]}" -d '{"provider":"sandbox"}'; echo
CONTACT=$(curl -s -X POST "$API/contacts" "${H[@]}" "${J[@]}" -d '{"name":"Grace Hopper","email":"grace@example.com"}' | jq -r .id)

echo '# A file, and an artifact that uses it (a draft), then ready'
FILE=$(curl -s -X POST "$API/media" "${H[@]}" -F 'file=@README.md;type=text/markdown' | jq -r .id)
ART=$(curl -s -X POST "$API/artifacts" "${H[@]}" "${J[@]}" \
  -d "{\"title\":\"Proposal\",\"type\":\"offer\",\"url\":\"https://example.com/proposal\",\"media\":[\"$FILE\"],\"contactId\":\"$CONTACT\"}" | jq -r .id)
curl -s -X PATCH "$API/artifacts/$ART" "${H[@]}" "${J[@]}" -d '{"status":"ready"}' | jq -c '{id, status, media: [.media[].url]}'

echo '# Manual mode: the delivery waits for a person'
curl -s -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"manual"}' | jq -c '{uuid, mode}'
PENDING=$(curl -s -X POST "$API/artifacts/deliver" "${H[@]}" "${J[@]}" -d "{\"artifactIds\":[\"$ART\"],\"message\":\"Here is the proposal we discussed.\",\"integration\":\"email\"}")
echo "$PENDING"
EXECUTION=$(jq -r .executionId <<<"$PENDING")
sleep 1
curl -s "$API/warp-executions/$EXECUTION" "${H[@]}" | jq -c '{status, draft}'

echo '# Approve, editing the subject'
curl -s -X POST "$API/warp-executions/$EXECUTION/approve" "${H[@]}" "${J[@]}" -d '{"subject":"Your proposal"}' | jq -c '{status, draft: .draft.subject}'
sleep 1
curl -s "$API/warp-executions/$EXECUTION" "${H[@]}" | jq -c '{status, deliveries: [.result.deliveries[] | {contactId, status, to, subject}]}'

echo '# What went out, the delivery record, and the artifact now sent'
curl -s "$API/outbox" "${H[@]}" | jq -c '.data[] | {to, subject, body}'
curl -s "$API/deliveries?artifactId=$ART" "${H[@]}" | jq -c '.data[] | {id, contactId, artifactIds, status, providerMessageId}'
curl -s "$API/artifacts/$ART" "${H[@]}" | jq -c '{status, deliveredAt}'
echo "# In the Temporal UI: workflow delivery-$EXECUTION"
