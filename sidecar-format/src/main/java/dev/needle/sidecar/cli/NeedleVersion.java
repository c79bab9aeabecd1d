package dev.needle.sidecar.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * What every needle command prints for {@code --version}: the Maven project version, which the
 * build filters into a resource of this module, the one module every executable contains.
 */
public final class NeedleVersion implements IVersionProvider {

    private static final String RESOURCE = "version.properties";

    /** The project version, such as {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = NeedleVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + NeedleVersion.class.getName());
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        return p.getProperty("version");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"needle " + version()};
    }
}
