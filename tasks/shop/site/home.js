// Home: four popular products, a different seeded selection per episode.
(async () => {
  await Shop.header();
  const { data } = await App.api("products");
  const picks = [...data].sort(() => Math.random() - 0.5).slice(0, 4);
  document.getElementById("popular").innerHTML = picks.map(Shop.card).join("");
  Shop.ready();
})();
