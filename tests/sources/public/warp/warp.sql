-- Warp's agent tables and one conversation, as kenn-io/agentsview's internal/parser/warp_test.go writes them
-- (warpSchema, seedWarpConversation; MIT). tests/sources/test_warp.py loads this into a warp.sqlite.
CREATE TABLE agent_conversations (
    id INTEGER PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL,
    conversation_data TEXT NOT NULL,
    last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX ux_agent_conversations_conversation_id
    ON agent_conversations (conversation_id);

CREATE TABLE ai_queries (
    id INTEGER PRIMARY KEY NOT NULL,
    exchange_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    start_ts DATETIME NOT NULL,
    input TEXT NOT NULL,
    working_directory TEXT,
    output_status TEXT NOT NULL,
    model_id TEXT NOT NULL DEFAULT '',
    planning_model_id TEXT NOT NULL DEFAULT '',
    coding_model_id TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX ux_ai_queries_exchange_id
    ON ai_queries(exchange_id);

INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at) VALUES ('conv-001', '{
    "conversation_usage_metadata":{
        "token_usage":[
            {"model_id":"Claude Opus 4","warp_tokens":100000,"byok_tokens":0}
        ],
        "tool_usage_metadata":{
            "run_command_stats":{"count":3,"commands_executed":3},
            "read_files_stats":{"count":2},
            "search_codebase_stats":{"count":0},
            "grep_stats":{"count":1},
            "file_glob_stats":{"count":0},
            "apply_file_diff_stats":{"count":1,"lines_added":5,"lines_removed":2,"files_changed":1},
            "write_to_long_running_shell_command_stats":{"count":0},
            "read_mcp_resource_stats":{"count":0},
            "call_mcp_tool_stats":{"count":0},
            "suggest_plan_stats":{"count":0},
            "suggest_create_plan_stats":{"count":0},
            "read_shell_command_output_stats":{"count":0},
            "use_computer_stats":{"count":0}
        }
    }
}', '2026-04-07 10:00:00');

INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id)
VALUES ('ex-001', 'conv-001', '2026-04-07 09:50:00.000000',
        '[{"Query":{"text":"Fix the JSON parsing bug in parser.go","context":[]}}]',
        '/Users/alice/code/myproject', '"Completed"', 'auto-genius');
INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id)
VALUES ('ex-002', 'conv-001', '2026-04-07 09:50:05.000000', '[]', '/Users/alice/code/myproject', '"Completed"',
        'auto-genius');
INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id)
VALUES ('ex-003', 'conv-001', '2026-04-07 09:51:00.000000',
        '[{"Query":{"text":"Now add a test for that fix","context":[]}}]',
        '/Users/alice/code/myproject', '"Completed"', 'auto-genius');
