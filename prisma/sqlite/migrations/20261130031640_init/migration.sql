-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workflowId" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "title" TEXT,
    "finalText" TEXT,
    "error" TEXT,
    "createdAtMs" BIGINT NOT NULL,
    "updatedAtMs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "inputs" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "clientMessageId" TEXT,
    "admission" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "admittedAtMs" BIGINT NOT NULL,
    "updatedAtMs" BIGINT NOT NULL,

    PRIMARY KEY ("sessionId", "id")
);

-- CreateTable
CREATE TABLE "messages" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "turn" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "inputId" TEXT,
    "createdAtMs" BIGINT NOT NULL,

    PRIMARY KEY ("sessionId", "id")
);

-- CreateTable
CREATE TABLE "parts" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "turn" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "text" TEXT,
    "toolCallId" TEXT,
    "metadataJson" TEXT,
    "createdAtMs" BIGINT NOT NULL,

    PRIMARY KEY ("sessionId", "id")
);

-- CreateTable
CREATE TABLE "tool_calls" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "turn" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "callId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "argsJson" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "outcome" TEXT,
    "blockedCategory" TEXT,
    "output" TEXT,
    "errorCode" TEXT,
    "resultJson" TEXT,
    "attempts" INTEGER,
    "startedAtMs" BIGINT,
    "endedAtMs" BIGINT,

    PRIMARY KEY ("sessionId", "id")
);

-- CreateTable
CREATE TABLE "events" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "dataJson" TEXT NOT NULL,
    "atMs" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "inputs_sessionId_admittedAtMs_idx" ON "inputs"("sessionId", "admittedAtMs");

-- CreateIndex
CREATE INDEX "messages_sessionId_turn_step_idx" ON "messages"("sessionId", "turn", "step");

-- CreateIndex
CREATE INDEX "parts_sessionId_turn_step_position_idx" ON "parts"("sessionId", "turn", "step", "position");

-- CreateIndex
CREATE INDEX "tool_calls_sessionId_turn_step_position_idx" ON "tool_calls"("sessionId", "turn", "step", "position");

-- CreateIndex
CREATE INDEX "events_sessionId_seq_idx" ON "events"("sessionId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "events_sessionId_id_key" ON "events"("sessionId", "id");

