export default function Page() {
  return <p>GET /api/run runs the agent.</p>;
}
