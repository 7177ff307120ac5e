//! The OpenAPI 3.1 document served at `/openapi.json`, written out by hand next to the handlers
//! and snapshot-tested so that a change to the API is a visible change.

use serde_json::{Value, json};

fn problem(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    })
}

fn ok(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}
    })
}

fn body(schema: &str) -> Value {
    json!({
        "required": true,
        "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}
    })
}

fn authed(summary: &str, request: Option<&str>, response: Value) -> Value {
    let mut operation = json!({
        "summary": summary,
        "security": [{"bearer": []}],
        "responses": {
            "200": response,
            "401": problem("No API key, or an unknown or revoked one."),
            "429": problem("The key is over its request rate; see Retry-After."),
            "503": problem("At the in-flight limit, or the database is unavailable."),
            "504": problem("The request ran past the server's time limit."),
        }
    });
    if let Some(request) = request {
        operation["requestBody"] = body(request);
        operation["responses"]["400"] = problem("Malformed JSON or a missing field.");
        operation["responses"]["413"] = problem("The body is over the size limit (16 KiB).");
        operation["responses"]["422"] =
            problem("The question is empty, over 2,000 characters or holds control characters.");
    }
    operation
}

/// The OpenAPI 3.1 document of the API.
pub fn openapi() -> Value {
    let mut resume = authed(
        "Answer a thread's clarifying question.",
        Some("ResumeRequest"),
        ok("An answer, or another clarifying question.", "Outcome"),
    );
    let include = json!({
        "name": "include", "in": "query", "required": false,
        "schema": {"enum": ["svg"]},
        "description": "`svg` adds the plan drawn as an SVG (`plan_svg`) to an answer."
    });
    resume["parameters"] = json!([{
        "name": "id", "in": "path", "required": true, "schema": {"type": "string"},
        "description": "The thread id of a needs_input outcome."
    }, include.clone()]);
    resume["responses"]["404"] = problem("No question waits in this thread for this tenant.");
    let mut answer = authed(
        "Answer a question (or, with thread_id, a clarifying question).",
        Some("AnswerRequest"),
        ok("An answer, or a clarifying question.", "Outcome"),
    );
    answer["responses"]["404"] = problem("No question waits in this thread for this tenant.");
    answer["parameters"] = json!([include]);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "planner",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Answers compound questions over a closed registry of SQL intents."
        },
        "paths": {
            "/v1/answer": {"post": answer},
            "/v1/threads/{id}/resume": {"post": resume},
            "/v1/plan": {"post": authed(
                "Plan a question without running it (the JSON of `planner plan --json`).",
                Some("PlanRequest"),
                ok("The plan report.", "PlanReport"),
            )},
            "/v1/registry": {"get": authed(
                "The registry: intents, params, planes, scopes.",
                None,
                ok("The registry.", "Registry"),
            )},
            "/v1/graph": {"get": authed(
                "The planner graph (with `?name=acquire`, the field-acquisition agent's) as a Mermaid flowchart and an SVG.",
                None,
                ok("The graph.", "Graph"),
            )},
            "/": {"get": {
                "summary": "The web page: ask, see the answer, its evidence and the plan.",
                "responses": {"200": {
                    "description": "The page.",
                    "content": {"text/html": {"schema": {"type": "string"}}}
                }}
            }},
            "/healthz": {"get": {
                "summary": "The process is up.",
                "responses": {"200": ok("Up.", "Status")}
            }},
            "/readyz": {"get": {
                "summary": "The database is reachable.",
                "responses": {
                    "200": ok("Ready.", "Status"),
                    "503": problem("The database is unavailable.")
                }
            }},
            "/metrics": {"get": {
                "summary": "Prometheus metrics.",
                "responses": {"200": {
                    "description": "The text exposition format.",
                    "content": {"text/plain": {"schema": {"type": "string"}}}
                }}
            }},
            "/openapi.json": {"get": {
                "summary": "This document.",
                "responses": {"200": {
                    "description": "The OpenAPI 3.1 document.",
                    "content": {"application/json": {"schema": {"type": "object"}}}
                }}
            }},
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {
                "NotFound": problem("No route has this path (any method)."),
                "MethodNotAllowed": problem(
                    "The path exists but not for this method; `Allow` lists the methods it takes."
                ),
            },
            "schemas": {
                "Status": {
                    "type": "object",
                    "required": ["status"],
                    "properties": {"status": {"enum": ["ok", "ready"]}}
                },
                "AnswerRequest": {
                    "type": "object",
                    "required": ["question"],
                    "additionalProperties": false,
                    "properties": {
                        "question": {"type": "string", "maxLength": 2000},
                        "thread_id": {"type": ["string", "null"]}
                    }
                },
                "ResumeRequest": {
                    "type": "object",
                    "required": ["answer"],
                    "additionalProperties": false,
                    "properties": {"answer": {"type": "string", "maxLength": 2000}}
                },
                "PlanRequest": {
                    "type": "object",
                    "required": ["question"],
                    "additionalProperties": false,
                    "properties": {"question": {"type": "string", "maxLength": 2000}}
                },
                "Outcome": {
                    "oneOf": [
                        {"$ref": "#/components/schemas/Answered"},
                        {"$ref": "#/components/schemas/NeedsInput"}
                    ],
                    "discriminator": {"propertyName": "status"}
                },
                "Answered": {
                    "type": "object",
                    "required": ["status", "route", "text", "text_source", "plan", "evidence",
                                 "suppressed_cells", "dropped", "trace", "timings"],
                    "properties": {
                        "status": {"const": "answered"},
                        "route": {"enum": ["single", "plan", "clarify", "refused", "unplannable"]},
                        "text": {"type": "string"},
                        "text_source": {"enum": ["narrated", "deterministic"]},
                        "plan": {"$ref": "#/components/schemas/PlanView"},
                        "evidence": {"type": "array", "items": {"$ref": "#/components/schemas/EvidenceTable"}},
                        "suppressed_cells": {"type": "integer", "minimum": 0},
                        "dropped": {"type": "array", "items": {"$ref": "#/components/schemas/DroppedNode"}},
                        "gate": {
                            "type": "object",
                            "properties": {
                                "passed": {"type": "boolean"},
                                "misses": {"type": "array", "items": {"type": "string"}}
                            }
                        },
                        "trace": {"type": "object"},
                        "plan_svg": {
                            "type": "string",
                            "description": "The plan as an SVG, with `?include=svg` only."
                        },
                        "timings": {"type": "array", "items": {
                            "type": "object",
                            "properties": {"node": {"type": "string"}, "micros": {"type": "integer"}}
                        }}
                    }
                },
                "NeedsInput": {
                    "type": "object",
                    "required": ["status", "thread_id", "question", "missing", "suggestions"],
                    "properties": {
                        "status": {"const": "needs_input"},
                        "thread_id": {"type": "string"},
                        "question": {"type": "string"},
                        "missing": {"type": "array", "items": {"type": "string"}},
                        "suggestions": {"type": "array", "items": {"type": "string"}}
                    }
                },
                "PlanView": {
                    "type": "object",
                    "properties": {
                        "nodes": {"type": "array", "items": {
                            "type": "object",
                            "properties": {"intent": {"type": "string"}, "args": {"type": "object"}}
                        }},
                        "edges": {"type": "array", "items": {"type": "object"}}
                    }
                },
                "EvidenceTable": {
                    "type": "object",
                    "properties": {
                        "intent": {"type": "string"},
                        "columns": {"type": "array", "items": {"type": "string"}},
                        "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                        "suppressed_cells": {"type": "integer", "minimum": 0},
                        "text": {"type": "string"}
                    }
                },
                "DroppedNode": {
                    "type": "object",
                    "properties": {"intent": {"type": "string"}, "reason": {"type": "string"}}
                },
                "PlanReport": {
                    "type": "object",
                    "description": "The format of spec/cli-contract.md (`planner plan --json`)."
                },
                "Registry": {
                    "type": "object",
                    "properties": {
                        "intents": {"type": "array", "items": {"type": "object"}},
                        "params": {"type": "array", "items": {"type": "object"}},
                        "planes": {"type": "array", "items": {"type": "object"}},
                        "scopes": {"type": "array", "items": {"type": "string"}}
                    }
                },
                "Graph": {
                    "type": "object",
                    "properties": {"mermaid": {"type": "string"}, "svg": {"type": "string"}}
                },
                "Problem": {
                    "type": "object",
                    "description": "RFC 9457 problem details.",
                    "properties": {
                        "type": {"type": "string"},
                        "title": {"type": "string"},
                        "status": {"type": "integer"},
                        "detail": {"type": "string"}
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    //! The document is a snapshot: a change to the API shows up in review.

    #[test]
    fn openapi_document_is_stable() {
        let document = super::openapi();
        assert_eq!(document["openapi"], "3.1.0");
        insta::assert_json_snapshot!(document);
    }
}
