#!/usr/bin/env bash
# The campaign walk-through of README.md against `npm start` (sandbox email provider):
#   bash scripts/campaign-walkthrough.sh [http://localhost:3000]     (needs curl and jq)
set -euo pipefail
API=${1:-http://localhost:3000}/v1
source "$(dirname "$0")/lib.sh"
new_team news
curl -s -X PUT "$API/agents/$AGENT/integrations/email" "${H[@]}" "${J[@]}" -d '{"provider":"sandbox"}' > /dev/null

echo '# Three newsletter contacts who agreed to marketing; one has no email yet'
for who in grace:Grace alan:Alan; do
  ID=$(curl -s -X POST "$API/contacts" "${H[@]}" "${J[@]}" -d "{\"name\":\"${who#*:} Example\",\"email\":\"${who%%:*}@example.com\",\"tags\":[\"newsletter\"]}" | jq -r .id)
  curl -s -X PATCH "$API/contacts/$ID" "${H[@]}" "${J[@]}" -d '{"marketingConsent":"granted"}' > /dev/null
done
LATE=$(curl -s -X POST "$API/contacts" "${H[@]}" "${J[@]}" -d '{"name":"Ada Later","tags":["newsletter"]}' | jq -r .id)
curl -s -X PATCH "$API/contacts/$LATE" "${H[@]}" "${J[@]}" -d '{"marketingConsent":"granted"}' > /dev/null
curl -s -X POST "$API/campaigns/audience-preview" "${H[@]}" "${J[@]}" -d '{"channel":"email","tags":["newsletter"]}'; echo

echo '# Create, test-send, send'
CMP=$(curl -s -X POST "$API/campaigns" "${H[@]}" "${J[@]}" -d '{"name":"November news","channel":"email","subject":"Hi {{first}}","content":"Hello {{first}}, here is what is new.","templateParams":{"first":"contact.firstName"},"tags":["newsletter"]}' | jq -r .id)
curl -s -X POST "$API/campaigns/$CMP/send-test" "${H[@]}" "${J[@]}" -d "{\"contactId\":\"$ID\"}" | jq -c '{sent, to, subject}'
curl -s -X POST "$API/campaigns/$CMP/send" "${H[@]}" "${J[@]}" -d '{}' | jq -c '{status}'
sleep 2
curl -s "$API/campaigns/$CMP" "${H[@]}" | jq -c '{status, recipientCount, sentCount, skippedCount, failedCount}'
curl -s "$API/campaigns/$CMP/recipients?status=skipped" "${H[@]}" | jq -c '.data[] | {contactId, skipReason, retryable}'

echo '# The skipped contact gets an address; retry takes exactly the retryable ones'
curl -s -X PATCH "$API/contacts/$LATE" "${H[@]}" "${J[@]}" -d '{"email":"ada@example.com"}' > /dev/null
curl -s -X POST "$API/campaigns/$CMP/retry" "${H[@]}" "${J[@]}" -d '{}'; echo
sleep 2
curl -s "$API/campaigns/$CMP" "${H[@]}" | jq -c '{status, sentCount, skippedCount}'
curl -s "$API/outbox?limit=10" "${H[@]}" | jq -c '.data[] | {to, subject}'
echo "# In the Temporal UI: campaign-$CMP-run-1 and -run-2"
