-- CreateTable
CREATE TABLE "questions" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "rowId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "view" TEXT NOT NULL,
    "autoDeferState" TEXT,
    "deadlineAtMs" BIGINT,
    "inputId" TEXT,
    "turn" INTEGER NOT NULL,
    "step" INTEGER NOT NULL,
    "askedAtMs" BIGINT NOT NULL,
    "updatedAtMs" BIGINT NOT NULL,

    CONSTRAINT "questions_pkey" PRIMARY KEY ("sessionId","id")
);

-- CreateIndex
CREATE INDEX "questions_status_askedAtMs_idx" ON "questions"("status", "askedAtMs");

