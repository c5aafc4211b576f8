-- CreateTable
CREATE TABLE "approvals" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "rowId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "subjectText" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "grantPattern" TEXT,
    "revision" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "decision" TEXT,
    "commandId" TEXT,
    "message" TEXT,
    "turn" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "requestedAtMs" BIGINT NOT NULL,
    "decidedAtMs" BIGINT,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("sessionId","id")
);

-- CreateIndex
CREATE INDEX "approvals_status_requestedAtMs_idx" ON "approvals"("status", "requestedAtMs");

