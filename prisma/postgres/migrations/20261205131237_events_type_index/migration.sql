-- CreateIndex
CREATE INDEX "events_sessionId_type_seq_idx" ON "events"("sessionId", "type", "seq");

