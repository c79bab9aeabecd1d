package dev.needle.query.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.ExplainFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine.Model.CommandSpec;

/** Prints an answer (for people or as JSON), then its plans, and warns on stderr when it is partial. */
final class Output {

    private static final JsonFactory JSON = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private Output() {
    }

    /** Prints {@code answer} to the command's out and err; returns {@link QueryCommand#PARTIAL} or {@link QueryCommand#OK}. */
    static int emit(Answer answer, boolean json, CommandSpec spec) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        boolean partial = !answer.problems().isEmpty();
        if (json) {
            try (JsonGenerator g = JSON.createGenerator(out)) {
                g.writeStartObject();
                answer.writeFields(g);
                g.writeStringField("status", partial ? "PARTIAL" : "COMPLETE");
                if (partial) {
                    g.writeStringField("message", String.join("; ", answer.problems()));
                }
                if (!answer.plans().isEmpty()) {
                    g.writeFieldName("explain");
                    ExplainFormat.write(answer.plans(), g);
                }
                g.writeEndObject();
            }
            out.println();
        } else {
            StringWriter text = new StringWriter();
            answer.print(new PrintWriter(text));
            out.print(text);
            // A blank line between parts, none before the plan of a trace that was not found.
            boolean separate = text.getBuffer().length() > 0;
            for (Explain plan : answer.plans()) {
                if (separate) {
                    out.println();
                }
                out.print(ExplainFormat.table(plan));
                separate = true;
            }
        }
        out.flush();
        if (!partial) {
            return QueryCommand.OK;
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println("needle " + spec.qualifiedName() + ": warning: partial answer, records may be missing:");
        for (String problem : answer.problems()) {
            err.println("  " + problem);
        }
        err.flush();
        return QueryCommand.PARTIAL;
    }
}
