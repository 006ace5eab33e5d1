#!/usr/bin/env bash
# The MCP walk-through of README.md against `npm start`: bash scripts/mcp-walkthrough.sh [http://localhost:3000]
# An SDK client given only the MCP URL signs in (curl plays the browser), then JSON-RPC by hand:
# the live catalog, a pending sensitive write approved over HTTP, credits. Needs curl and jq.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BASE=${1:-http://localhost:3000}
MCP="$BASE/mcp"
PASSWORD='correct horse battery staple'
export TAP_PASSWORD="$PASSWORD"
new_team mcp --email "mia-$RANDOM@example.com"
A=(-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json')
rpc() { curl -s "$MCP" "${A[@]}" -H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM" -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":${2:-{\}}}"; }
call() { rpc tools/call "{\"name\":\"$1\",\"arguments\":${2:-{\}}}" | jq -c '.result.structuredContent'; }

echo '# 1. No credential: 401, and the header that starts discovery'
curl -s -o /dev/null -D - "$MCP" "${A[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | grep -iE '^(HTTP|www-authenticate)'

echo '# 2. The SDK client with only the MCP URL: discovery, registration, PKCE; curl signs in for the browser'
LOG=$(mktemp); rm -f "${DATA_DIR:-.data}/mcp-connect.json"
npm run -s mcp:connect -- "$MCP" >"$LOG" 2>&1 &
CONNECT=$!
for _ in $(seq 100); do grep -q '/oauth/authorize?' "$LOG" && break; sleep 0.2; done
AUTHZ=$(grep -o 'http[^ ]*/oauth/authorize?[^ ]*' "$LOG")
echo "$AUTHZ" | cut -c1-120
CALLBACK=$(sign_in_and_allow "$BASE" "$AUTHZ" "$EMAIL" "$PASSWORD")
curl -s "$CALLBACK"; echo
wait "$CONNECT"; cat "$LOG"; rm -f "$LOG"

echo '# 3. The live catalog: core tools, then an app installed through the API'
rpc tools/list | jq -c '[.result.tools[].name]'
curl -s -X PUT "$BASE/v1/apps/artifacts" "${H[@]}" | jq -c '{slug, installed}'
rpc tools/list | jq -c '[.result.tools[].name]'

echo '# 4. Tools over the same services as the HTTP API (and their error codes)'
ART=$(call create_artifact '{"title":"Proposal","type":"offer","url":"https://example.com/p"}')
echo "$ART"; ART_ID=$(jq -r .id <<<"$ART")
call get_artifact '{"artifactId":"art_nope"}'

echo '# 5. Manual mode: a sensitive write waits for a person; a retry finds the same execution'
curl -s -X PATCH "$BASE/v1/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"manual"}' | jq -c '{mode}'
PENDING=$(call delete_artifact "{\"artifactId\":\"$ART_ID\"}"); echo "$PENDING"
call delete_artifact "{\"artifactId\":\"$ART_ID\"}" | jq -c '{executionId}'
EXEC=$(jq -r .executionId <<<"$PENDING")
curl -s -X POST "$BASE/v1/warp-executions/$EXEC/approve" "${H[@]}" "${J[@]}" -d '{}' | jq -c '{status}'
sleep 1
call check_warp_executions "{\"executionIds\":[\"$EXEC\"]}" | jq -c '.executions[] | {id, warp, status, result}'

echo '# 6. Credits: reads 1, writes 2, per billing cycle'
curl -s "$BASE/v1/credits" "${H[@]}"; echo
