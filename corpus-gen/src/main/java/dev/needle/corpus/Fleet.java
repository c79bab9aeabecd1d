package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The services a corpus's records come from: each service runs a few pods, and each pod is one
 * OTLP resource ({@code service.name}, {@code k8s.pod.name}, {@code host.name}, {@code cloud.region} …)
 * shared by every record it emits, as an SDK's resource is.
 */
final class Fleet {

    /** The sampling ratios services run with: the corpus's double-valued attribute. */
    static final double[] SAMPLING_RATIOS = {1.0, 0.5, 0.25, 0.1, 0.01};
    private static final String[] NAMES = {"frontend", "checkout", "cart", "payment", "shipping", "email",
        "currency", "recommendation", "product-catalog", "ad", "quote", "fraud-detection", "accounting",
        "inventory", "search", "auth", "user-profile", "notification", "review", "pricing", "image-provider",
        "session", "gateway", "order", "billing", "loyalty"};
    private static final String[] NAMESPACES = {"shop", "payments", "platform", "identity"};
    private static final String[] REGIONS = {"eu-west-1", "us-east-1", "ap-southeast-2"};
    private static final String[][] LANGUAGES = {
        {"java", "io.opentelemetry.spring-webmvc-6.0", "2.10.0"},
        {"go", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", "0.57.0"},
        {"nodejs", "@opentelemetry/instrumentation-http", "0.55.0"},
        {"python", "opentelemetry.instrumentation.flask", "0.49b0"}};
    private static final String SCHEMA_URL = "https://opentelemetry.io/schemas/1.26.0";
    private static final String POD_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    /** One service: its pods' resources and its instrumentation scopes. */
    record Service(String name, int port, int samplingIndex, Scope spanScope, Scope logScope,
                   int firstResource, int pods) {
    }

    final List<Service> services;
    /** Every pod's resource; a service's are {@code firstResource .. firstResource + pods - 1}. */
    final List<Resource> resources;
    /** Values of each resource attribute key that no resource has, inside the values that occur. */
    final Map<String, List<AnyValue>> absentResourceValues;

    Fleet(int count, long seed) {
        SplittableRandom random = new SplittableRandom(Seeds.of(seed, Seeds.FLEET, 0));
        List<Service> services = new ArrayList<>();
        List<Resource> resources = new ArrayList<>();
        int nodes = Math.max(3, count * 4 / 8);
        Set<String> pods = new HashSet<>();
        List<AnyValue> absentPods = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            String name = NAMES[s % NAMES.length] + (s >= NAMES.length ? "-" + (s / NAMES.length + 1) : "");
            String[] language = LANGUAGES[random.nextInt(LANGUAGES.length)];
            String version = "1." + random.nextInt(30) + "." + random.nextInt(10);
            String namespace = NAMESPACES[random.nextInt(NAMESPACES.length)];
            String deployment = name + "-" + Long.toHexString(random.nextLong() | 1L << 60).substring(0, 9);
            int podCount = 2 + random.nextInt(5);
            int port = random.nextInt(4) == 0 ? 50051 : 8080;
            int samplingIndex = random.nextInt(SAMPLING_RATIOS.length);
            services.add(new Service(name, port, samplingIndex,
                    new Scope(language[1], language[2], List.of(), 0, ""),
                    new Scope("com.example." + name.replace('-', '.'), "", List.of(), 0, ""),
                    resources.size(), podCount));
            for (int p = 0; p < podCount; p++) {
                String pod = deployment + "-" + podSuffix(random);
                pods.add(pod);
                int node = random.nextInt(nodes);
                resources.add(new Resource(List.of(
                        KeyValue.of("service.name", name),
                        KeyValue.of("service.version", version),
                        KeyValue.of("service.namespace", namespace),
                        KeyValue.of("k8s.namespace.name", namespace),
                        KeyValue.of("k8s.pod.name", pod),
                        KeyValue.of("host.name", "ip-10-0-" + (node / 250) + "-" + (node % 250 + 4) + ".internal"),
                        KeyValue.of("cloud.region", REGIONS[node % REGIONS.length]),
                        KeyValue.of("deployment.environment.name", "production"),
                        KeyValue.of("telemetry.sdk.language", language[0])), 0, SCHEMA_URL));
            }
            String absentPod;
            do {
                absentPod = deployment + "-" + podSuffix(random);
            } while (pods.contains(absentPod));
            if (absentPods.size() < 8) {
                absentPods.add(AnyValue.of(absentPod));
            }
        }
        this.services = List.copyOf(services);
        this.resources = List.copyOf(resources);
        this.absentResourceValues = Map.of(
                "service.name", List.of(AnyValue.of("checkout-legacy"), AnyValue.of("payments")),
                "k8s.pod.name", List.copyOf(absentPods),
                "cloud.region", List.of(AnyValue.of("eu-central-1"), AnyValue.of("sa-east-1")),
                "host.name", List.of(AnyValue.of("ip-10-0-0-3.internal")));
    }

    private static String podSuffix(SplittableRandom random) {
        char[] suffix = new char[5];
        for (int i = 0; i < suffix.length; i++) {
            suffix[i] = POD_ALPHABET.charAt(random.nextInt(POD_ALPHABET.length()));
        }
        return new String(suffix);
    }
}
