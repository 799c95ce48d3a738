"""The store as other SDKs' session backend: each adapter speaks one SDK's protocol over a Store,
so an agent writes its sessions into Sessionscope as they happen. An adapter imports its SDK only
to use the SDK's own helpers, and needs no Qt.

    from sessionscope.adapters.claude import ClaudeSessionStore
    options = ClaudeAgentOptions(session_store=ClaudeSessionStore())   # the default store
"""
