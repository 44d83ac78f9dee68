//! The tower layers every gRPC call of the core passes through: each call runs to its end in a
//! task of its own, an access-log line and the call metrics.

/// Runs every call to its end in a task of its own, whatever the caller does: a client that
/// disconnects (or a deadline that passes) drops only the wait for the answer, never a
/// transaction half-way, so no connection goes back to the pool inside one.
#[derive(Debug, Clone, Copy, Default)]
pub struct DetachLayer;

impl<S> tower::Layer<S> for DetachLayer {
    type Service = Detach<S>;

    fn layer(&self, inner: S) -> Detach<S> {
        Detach(inner)
    }
}

#[derive(Debug, Clone)]
pub struct Detach<S>(S);

impl<S, R> tower::Service<R> for Detach<S>
where
    S: tower::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        // The detached call keeps the caller's span (the call's request id).
        let call = tokio::spawn(tracing::Instrument::in_current_span(self.0.call(request)));
        Box::pin(async move {
            match call.await {
                Ok(result) => result,
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                // Cancelled only when the runtime shuts down: nobody waits for an answer.
                Err(_) => std::future::pending().await,
            }
        })
    }
}

/// The code of a gRPC answer from its headers: errors travel there (a trailers-only answer);
/// a success or a stream has its status in the trailers, after the headers: `Ok` here.
fn grpc_code(headers: &tonic::codegen::http::HeaderMap) -> tonic::Code {
    headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .map_or(tonic::Code::Ok, tonic::Code::from_i32)
}

/// One access-log line per gRPC call (target `access`, at `info`): the method, its gRPC code
/// and latency, in a span that carries the caller's `x-request-id` (the gateway forwards the
/// HTTP request's), so every line the call causes names it.
pub fn access_log() -> tower_http::trace::TraceLayer<
    tower_http::classify::SharedClassifier<tower_http::classify::GrpcErrorsAsFailures>,
    impl tower_http::trace::MakeSpan<tonic::body::Body> + Clone,
    (),
    impl tower_http::trace::OnResponse<tonic::body::Body> + Clone,
    (),
    (),
    (),
> {
    tower_http::trace::TraceLayer::new_for_grpc()
        .make_span_with(
            |request: &tonic::codegen::http::Request<tonic::body::Body>| {
                let request_id = request
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default();
                tracing::info_span!("grpc", method = %request.uri().path(), request_id)
            },
        )
        .on_request(())
        .on_response(
            |response: &tonic::codegen::http::Response<tonic::body::Body>,
             latency: std::time::Duration,
             _span: &tracing::Span| {
                let code = grpc_code(response.headers());
                let latency_ms = latency.as_secs_f64() * 1000.0;
                // A failure of ours (not the caller's) is an error line, with the request id.
                if matches!(
                    code,
                    tonic::Code::Internal | tonic::Code::Unavailable | tonic::Code::Unknown
                ) {
                    tracing::error!(target: "access", grpc_code = ?code, latency_ms, "call failed");
                } else {
                    tracing::info!(target: "access", grpc_code = ?code, latency_ms, "call");
                }
            },
        )
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

/// Counts every gRPC call by method and code, with its latency:
/// `grpc_server_calls_total{method, code}` and `grpc_server_call_duration_seconds{method}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrpcMetricsLayer;

impl<S> tower::Layer<S> for GrpcMetricsLayer {
    type Service = GrpcMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GrpcMetrics(inner)
    }
}

#[derive(Debug, Clone)]
pub struct GrpcMetrics<S>(S);

impl<S, B, R> tower::Service<tonic::codegen::http::Request<B>> for GrpcMetrics<S>
where
    S: tower::Service<
            tonic::codegen::http::Request<B>,
            Response = tonic::codegen::http::Response<R>,
        >,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: tonic::codegen::http::Request<B>) -> Self::Future {
        let method = request.uri().path().to_string();
        let started = std::time::Instant::now();
        let call = self.0.call(request);
        Box::pin(async move {
            let result = call.await;
            let code = match &result {
                Ok(response) => grpc_code(response.headers()),
                Err(_) => tonic::Code::Unknown,
            };
            metrics::counter!(
                "grpc_server_calls_total",
                "method" => method.clone(),
                "code" => format!("{code:?}"),
            )
            .increment(1);
            metrics::histogram!("grpc_server_call_duration_seconds", "method" => method)
                .record(started.elapsed().as_secs_f64());
            result
        })
    }
}
